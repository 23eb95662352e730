package io.runner.spring;

import java.nio.charset.StandardCharsets;

import org.springframework.boot.web.embedded.tomcat.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Embedded Tomcat, Spring Boot's default servlet container (the one a Spring MVC service ships with, and
 * the one {@code spring.threads.virtual.enabled} gives a virtual-thread-per-request executor). Settings
 * that application.properties cannot express live here.
 */
@Configuration(proxyBeanMethods = false)
public class ServerConfig {

    /**
     * Tomcat decodes the request path into the servlet path with the connector's URI encoding and, for
     * UTF-8, answers a path with invalid UTF-8 ({@code /api/strings/%FF}) itself: an HTML 400 that closes
     * the connection. With ISO-8859-1 every byte decodes, the request reaches Spring MVC (which matches and
     * decodes paths from the raw request URI, as UTF-8, itself), and {@link ContractController} answers the
     * contract's JSON 400 on a connection that stays open. Nothing reads the servlet path.
     */
    @Bean
    WebServerFactoryCustomizer<TomcatServletWebServerFactory> rawPathDecoding() {
        return factory -> factory.setUriEncoding(StandardCharsets.ISO_8859_1);
    }
}
