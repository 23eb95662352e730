package io.runner.spring;

import java.util.HashMap;
import java.util.Map;

import org.springframework.aot.hint.annotation.RegisterReflectionForBinding;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;

import io.runner.helidon.Settings;
import io.runner.helidon.Settings.InvalidSetting;

/**
 * The contract service on Spring Boot: Spring MVC on embedded Tomcat with virtual threads, Spring Data
 * JPA on HikariCP, Jackson and Bean Validation (runtimes/CONTRACT.md).
 * <p>
 * {@link DataSourceAutoConfiguration} is excluded because the contract wants the service to start without
 * DATABASE_URL: {@link DatabaseConfig} builds the pool only when it is set, and the JPA and repository
 * auto-configurations back off when there is no DataSource.
 * <p>
 * The request and answer types are bound by our own {@code ObjectMapper} calls ({@link JsonBodies},
 * {@link Responses}), which Spring's AOT processing cannot see; {@link RegisterReflectionForBinding} gives a
 * GraalVM native image (README, "Native image") their reflection metadata.
 */
@SpringBootApplication(exclude = DataSourceAutoConfiguration.class)
@RegisterReflectionForBinding({OrderRequest.class, OrderRequest.Customer.class, OrderRequest.Item.class,
        Pricing.Priced.class, Pricing.Line.class, ProductBody.class, ProductView.class, ProductView.Page.class})
public class Application {

    public static void main(String[] args) {
        Settings settings;
        try {
            // checked here, before Spring starts, so that a bad value is one line on stderr and exit 2
            // (the beans read the same variables again through Spring's Environment)
            settings = Settings.fromEnv(System.getenv());
            MicroSettings.fromEnv(System.getenv());
        } catch (InvalidSetting e) {
            System.err.println("spring-boot-vt: " + e.getMessage());
            System.exit(2);
            return;
        }
        SpringApplication app = new SpringApplication(Application.class);
        Map<String, Object> defaults = new HashMap<>();
        defaults.put("server.port", settings.port());
        defaults.put("server.address", settings.host());
        app.setDefaultProperties(defaults);
        app.run(args);
    }
}
