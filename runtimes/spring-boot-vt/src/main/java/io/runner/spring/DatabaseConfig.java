package io.runner.spring;

import javax.sql.DataSource;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.type.AnnotatedTypeMetadata;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

/**
 * The HikariCP pool, only when DATABASE_URL is set. Without it there is no DataSource bean, so Spring
 * Boot's JPA, transaction-manager and repository auto-configurations back off (they are conditional on a
 * DataSource) and {@link ProductController} answers 503 "no database configured".
 * <p>
 * The pool is fixed (minimumIdle = maximumPoolSize = DB_POOL_SIZE): the contract holds the connections
 * from start to end so that no run measures connection set-up. {@code initializationFailTimeout = -1}
 * starts the service even when the database is down (the pool keeps trying in the background) and a
 * connection not had within 5 s ({@code connectionTimeout}) is a 503, not a hang.
 */
@Configuration(proxyBeanMethods = false)
@Conditional(DatabaseConfig.DatabaseUrlSet.class)
public class DatabaseConfig {

    /** True when DATABASE_URL is a non-blank property (the environment variable, or a test property). */
    static final class DatabaseUrlSet implements Condition {
        @Override
        public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
            String url = context.getEnvironment().getProperty("DATABASE_URL");
            return url != null && !url.isBlank();
        }
    }

    @Bean(destroyMethod = "close")
    DataSource dataSource(MicroSettings settings) {
        DatabaseUrl url = settings.database().orElseThrow();
        HikariConfig config = new HikariConfig();
        config.setPoolName("products");
        config.setJdbcUrl(url.jdbcUrl());
        config.setUsername(url.user());
        config.setPassword(url.password());
        config.setMaximumPoolSize(settings.poolSize());
        config.setMinimumIdle(settings.poolSize());
        config.setConnectionTimeout(5_000);
        config.setInitializationFailTimeout(-1);
        config.setAutoCommit(true);
        return new HikariDataSource(config);
    }
}
