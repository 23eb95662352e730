package io.runner.spring;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

import io.runner.helidon.Settings;
import io.runner.helidon.Settings.InvalidSetting;

/**
 * The contract's settings as beans, read from Spring's {@link Environment} (the process environment in
 * production, where {@link Application#main} has already rejected bad values; test properties in the tests).
 */
@Configuration(proxyBeanMethods = false)
public class SettingsConfig {
    private static final List<String> NAMES = List.of("HOST", "PORT", "WORK_FACTOR", "LOG_REQUESTS", "METRICS",
            "DATABASE_URL", "DB_POOL_SIZE", "PROFILE_URL", "ORDERS_URL", "RECOMMENDATIONS_URL",
            "DOWNSTREAM_TIMEOUT_MS");

    static Map<String, String> contractVariables(Environment environment) {
        Map<String, String> values = new HashMap<>();
        for (String name : NAMES) {
            String value = environment.getProperty(name);
            if (value != null) {
                values.put(name, value);
            }
        }
        return values;
    }

    @Bean
    Settings settings(Environment environment) throws InvalidSetting {
        return Settings.fromEnv(contractVariables(environment));
    }

    @Bean
    MicroSettings microSettings(Environment environment) throws InvalidSetting {
        return MicroSettings.fromEnv(contractVariables(environment));
    }
}
