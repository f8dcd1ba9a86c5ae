package org.paratrain.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** make_classification against scikit-learn's output, bit for bit, for several argument sets. */
class MakeClassificationTest {

    static Stream<JsonNode> cases() {
        List<JsonNode> out = new ArrayList<>();
        Fixtures.load("make_classification.json").get("cases").forEach(out::add);
        return out.stream();
    }

    /** The arguments with scikit-learn's defaults; a JSON null shift or scale means random. */
    static MakeClassification fromArgs(JsonNode a) {
        double[] weights = a.hasNonNull("weights") ? Fixtures.doubles(a.get("weights")) : null;
        return new MakeClassification(a.path("n_samples").asInt(100), a.path("n_features").asInt(20),
            a.path("n_informative").asInt(2), a.path("n_redundant").asInt(2), a.path("n_repeated").asInt(0),
            a.path("n_classes").asInt(2), a.path("n_clusters_per_class").asInt(2), weights,
            a.path("flip_y").asDouble(0.01), a.path("class_sep").asDouble(1.0), a.path("hypercube").asBoolean(true),
            optional(a, "shift", 0.0), optional(a, "scale", 1.0), a.path("shuffle").asBoolean(true));
    }

    private static Double optional(JsonNode a, String field, double byDefault) {
        if (!a.has(field)) {
            return byDefault;
        }
        return a.get(field).isNull() ? null : a.get(field).asDouble();
    }

    /** As a scikit-learn call reads: the sizes, then only the keywords given, the rest left to the defaults. */
    static MakeClassificationBuilder fromKeywords(JsonNode a) {
        MakeClassificationBuilder b = MakeClassification.builder(a.path("n_samples").asInt(100),
            a.path("n_features").asInt(20));
        if (a.has("n_informative")) {
            b.informative(a.get("n_informative").asInt());
        }
        if (a.has("n_redundant")) {
            b.redundant(a.get("n_redundant").asInt());
        }
        if (a.has("n_repeated")) {
            b.repeated(a.get("n_repeated").asInt());
        }
        if (a.has("n_classes")) {
            b.classes(a.get("n_classes").asInt());
        }
        if (a.has("n_clusters_per_class")) {
            b.clustersPerClass(a.get("n_clusters_per_class").asInt());
        }
        if (a.hasNonNull("weights")) {
            b.weights(Fixtures.doubles(a.get("weights")));
        }
        if (a.has("flip_y")) {
            b.flipY(a.get("flip_y").asDouble());
        }
        if (a.has("class_sep")) {
            b.classSep(a.get("class_sep").asDouble());
        }
        if (a.has("hypercube")) {
            b.hypercube(a.get("hypercube").asBoolean());
        }
        if (a.has("shift")) {
            b.shift(a.get("shift").isNull() ? null : a.get("shift").asDouble());
        }
        if (a.has("scale")) {
            b.scale(a.get("scale").isNull() ? null : a.get("scale").asDouble());
        }
        if (a.has("shuffle")) {
            b.shuffle(a.get("shuffle").asBoolean());
        }
        return b;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void keywordsTakeScikitLearnsDefaults(JsonNode c) {
        JsonNode args = c.get("args");
        Dataset d = fromKeywords(args).generate(args.get("random_state").asLong());
        NumpyRandomStateTest.assertBits(Fixtures.doubles(c.get("X")), d.x());
        assertArrayEquals(Fixtures.doubles(c.get("y")), d.y());
    }

    @Test
    void theBuilderChecksTheArgumentsTogether() {
        // 3 features do not fit the defaults (2 informative + 2 redundant) until the redundant ones go.
        assertThrows(IllegalArgumentException.class, () -> MakeClassification.builder(10, 3).build());
        MakeClassification m = MakeClassification.builder(10, 3).redundant(0).build();
        assertEquals(new MakeClassification(10, 3, 2, 0, 0, 2, 2, null, 0.01, 1.0, true, 0.0, 1.0, true).toString(),
            m.toString());
        assertThrows(IllegalArgumentException.class, () -> MakeClassification.builder(10, 5).flipY(1.5).generate(1));
        assertThrows(IllegalArgumentException.class, () -> MakeClassification.builder(10, 5).generate(-1));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void equalsScikitLearnBitForBit(JsonNode c) {
        JsonNode args = c.get("args");
        Dataset d = fromArgs(args).generate(new NumpyRandomState(args.get("random_state").asLong()));
        NumpyRandomStateTest.assertBits(Fixtures.doubles(c.get("X")), d.x());
        assertArrayEquals(Fixtures.doubles(c.get("y")), d.y());
    }

    @Test
    void refusesWhatScikitLearnRefuses() {
        // 2 classes x 2 clusters need 4 vertices: 1 informative feature has 2.
        assertThrows(IllegalArgumentException.class, () -> new MakeClassification(10, 5, 1, 0, 0, 2, 2, null, 0, 1,
            true, 0.0, 1.0, true));
        assertThrows(IllegalArgumentException.class, () -> new MakeClassification(10, 3, 2, 2, 0, 2, 1, null, 0, 1,
            true, 0.0, 1.0, true));
        assertThrows(IllegalArgumentException.class, () -> new MakeClassification(10, 5, 2, 0, 0, 3, 1,
            new double[] {0.5}, 0, 1, true, 0.0, 1.0, true));
        assertThrows(IllegalArgumentException.class, () -> new MakeClassification(10, 5, 2, 0, 0, 2, 1, null, 1.5, 1,
            true, 0.0, 1.0, true));
    }
}
