package io.runner.spring;

import org.springframework.boot.autoconfigure.jackson.Jackson2ObjectMapperBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;

/**
 * Jackson without coercion, for the contract's type rules: {@code "2"}, {@code 2.5} and {@code 2.0} are not
 * the integer 2, {@code 12} is not the string "12", {@code true} is not a number and {@code ""} is not an
 * object. Jackson accepts all of these by default.
 * <ul>
 * <li>{@code ACCEPT_FLOAT_AS_INT} off: a JSON fraction (also {@code 2.0}) into an integer fails;</li>
 * <li>{@code ALLOW_COERCION_OF_SCALARS} off: strings into numbers and booleans fail;</li>
 * <li>the coercion defaults set to {@code Fail} for every scalar input shape, which covers what the two
 * features do not (a number or boolean into a String, a boolean into a number, an empty string into an
 * object); an input whose shape is the target's own type is not a coercion and is unaffected;</li>
 * <li>{@code FAIL_ON_NULL_FOR_PRIMITIVES} and {@code FAIL_ON_NUMBERS_FOR_ENUMS}: no silent 0 or ordinal
 * (the request types use wrappers and strings, so this guards later changes);</li>
 * <li>{@code FAIL_ON_TRAILING_TOKENS}: {@code {} {}} is not one JSON value (a 400);</li>
 * <li>unknown members stay ignored ({@code FAIL_ON_UNKNOWN_PROPERTIES} is off in Spring Boot's mapper).</li>
 * </ul>
 */
@Configuration(proxyBeanMethods = false)
public class JsonConfig {

    @Bean
    Jackson2ObjectMapperBuilderCustomizer noCoercion() {
        return builder -> builder
                .featuresToDisable(DeserializationFeature.ACCEPT_FLOAT_AS_INT, MapperFeature.ALLOW_COERCION_OF_SCALARS,
                        DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .featuresToEnable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES,
                        DeserializationFeature.FAIL_ON_NUMBERS_FOR_ENUMS, DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .postConfigurer(mapper -> mapper.coercionConfigDefaults()
                        .setAcceptBlankAsEmpty(false)
                        .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                        .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                        .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail)
                        .setCoercion(CoercionInputShape.String, CoercionAction.Fail)
                        .setCoercion(CoercionInputShape.EmptyString, CoercionAction.Fail));
    }
}
