package org.paratrain.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Checks make_regression against scikit-learn's output for several argument sets. */
class MakeRegressionTest {

    static Stream<JsonNode> cases() {
        List<JsonNode> out = new ArrayList<>();
        Fixtures.load("make_regression.json").get("cases").forEach(out::add);
        return out.stream();
    }

    static MakeRegression fromArgs(JsonNode a) {
        int features = a.get("n_features").asInt();
        return new MakeRegression(a.get("n_samples").asInt(), features,
            a.path("n_informative").asInt(10), a.path("bias").asDouble(0.0),
            a.path("noise").asDouble(0.0), a.path("shuffle").asBoolean(true));
    }

    /** As a scikit-learn call reads: the sizes, then only the keywords given, the rest left to the defaults. */
    static MakeRegression fromKeywords(JsonNode a) {
        MakeRegression m = MakeRegression.of(a.get("n_samples").asInt(), a.get("n_features").asInt());
        m = a.has("n_informative") ? m.withInformative(a.get("n_informative").asInt()) : m;
        m = a.has("bias") ? m.withBias(a.get("bias").asDouble()) : m;
        m = a.has("noise") ? m.withNoise(a.get("noise").asDouble()) : m;
        return a.has("shuffle") ? m.withShuffle(a.get("shuffle").asBoolean()) : m;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void equalsScikitLearn(JsonNode c) {
        JsonNode args = c.get("args");
        assertLikeScikitLearn(c, fromArgs(args).generate(new NumpyRandomState(args.get("random_state").asLong())));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void keywordsTakeScikitLearnsDefaults(JsonNode c) {
        JsonNode args = c.get("args");
        assertLikeScikitLearn(c, fromKeywords(args).generate(args.get("random_state").asLong()));
    }

    @Test
    void eachKeywordSetsItsArgumentAlone() {
        MakeRegression m = MakeRegression.of(7, 3).withInformative(2).withBias(1.5).withNoise(0.25).withShuffle(false);
        assertEquals(new MakeRegression(7, 3, 2, 1.5, 0.25, false), m);
        assertEquals(new MakeRegression(7, 3, 10, 0.0, 0.0, true), MakeRegression.of(7, 3));
        assertThrows(IllegalArgumentException.class, () -> MakeRegression.of(7, 3).withNoise(-1));
        assertThrows(IllegalArgumentException.class, () -> MakeRegression.of(7, 3).generate(-1));
    }

    private static void assertLikeScikitLearn(JsonNode c, MakeRegression.Result r) {
        JsonNode args = c.get("args");
        NumpyRandomStateTest.assertBits(Fixtures.doubles(c.get("X")), r.data().x());
        NumpyRandomStateTest.assertBits(Fixtures.doubles(c.get("coef")), r.coef());
        double[] y = Fixtures.doubles(c.get("y"));
        if (args.get("n_features").asInt() == 1) {
            NumpyRandomStateTest.assertBits(y, r.data().y());
        } else {
            for (int i = 0; i < y.length; i++) {
                double tolerance = 1e-12 * Math.max(1.0, Math.abs(y[i]));
                assertEquals(y[i], r.data().y()[i], tolerance, "y[" + i + "]");
            }
        }
    }

    @Test
    void rejectsImpossibleArguments() {
        assertThrows(IllegalArgumentException.class, () -> new MakeRegression(0, 1, 1, 0, 0, true));
        assertThrows(IllegalArgumentException.class, () -> new MakeRegression(5, 0, 1, 0, 0, true));
        assertThrows(IllegalArgumentException.class, () -> new MakeRegression(5, 1, 1, 0, -1, true));
        assertThrows(IllegalArgumentException.class, () -> new MakeRegression(5, 1, 1, 0, Double.NaN, true));
        assertThrows(IllegalArgumentException.class, () -> new MakeRegression(5, 1, 1, Double.NaN, 0, true));
    }
}
