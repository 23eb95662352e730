package io.runner.helidon;

import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;

/** The shared contract vectors, runtimes/contract/vectors.json (override with -Dvectors=PATH). */
final class Vectors {
    static final Path PATH = Path.of(System.getProperty("vectors", "../contract/vectors.json"));
    private static JsonObject root;

    private Vectors() {
    }

    static synchronized JsonObject root() {
        if (root == null) {
            root = parse(read(PATH));
        }
        return root;
    }

    static List<JsonObject> generated() {
        return root().getJsonArray("generated").getValuesAs(JsonObject.class);
    }

    static List<JsonObject> strings() {
        return root().getJsonArray("strings").getValuesAs(JsonObject.class);
    }

    static List<JsonObject> errors() {
        return root().getJsonArray("errors").getValuesAs(JsonObject.class);
    }

    static JsonObject parse(String json) {
        try (JsonReader reader = Json.createReader(new StringReader(json))) {
            return reader.readObject();
        }
    }

    private static String read(Path path) {
        try {
            return Files.readString(path);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the contract vectors " + path.toAbsolutePath(), e);
        }
    }
}
