package io.runner.spring;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The shared vectors: runtimes/contract/vectors.json (-Dvectors=PATH) and microservices.json
 * (-Dmicroservices=PATH), read with a plain Jackson mapper (the tests compare trees read by the same mapper).
 */
final class Vectors {
    static final ObjectMapper MAPPER = new ObjectMapper();
    static final Path CONTRACT = Path.of(System.getProperty("vectors", "../contract/vectors.json"));
    static final Path MICROSERVICES = Path.of(System.getProperty("microservices", "../contract/microservices.json"));

    private Vectors() {
    }

    static JsonNode contract() {
        return read(CONTRACT);
    }

    static JsonNode microservices() {
        return read(MICROSERVICES);
    }

    static List<JsonNode> list(JsonNode array) {
        List<JsonNode> out = new ArrayList<>();
        array.forEach(out::add);
        return out;
    }

    static JsonNode tree(String json) {
        try {
            return MAPPER.readTree(json);
        } catch (IOException e) {
            throw new AssertionError("not JSON: " + json, e);
        }
    }

    private static JsonNode read(Path path) {
        try {
            return MAPPER.readTree(Files.readString(path));
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the contract vectors " + path.toAbsolutePath(), e);
        }
    }
}
