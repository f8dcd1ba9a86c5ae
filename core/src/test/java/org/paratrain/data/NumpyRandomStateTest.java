package org.paratrain.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/** Compares every kind of draw with numpy's own output for the same seeds, bit for bit. */
class NumpyRandomStateTest {

    static Stream<JsonNode> seeds() {
        List<JsonNode> out = new ArrayList<>();
        Fixtures.load("random_state.json").get("seeds").forEach(out::add);
        return out.stream();
    }

    @ParameterizedTest(name = "seed {index}")
    @MethodSource("seeds")
    void drawsEqualNumpyBitForBit(JsonNode fixture) {
        NumpyRandomState rng = Fixtures.seeded(fixture.get("seed"));
        assertBits(Fixtures.doubles(fixture.get("random_sample")), draw(700, rng::randomSample));
        assertBits(Fixtures.doubles(fixture.get("gauss")), draw(1001, rng::gauss));
        assertBits(Fixtures.doubles(fixture.get("normal")), draw(5, () -> rng.normal(3.0, 2.5)));
        int[] perm = range(1000);
        rng.shuffle(perm);
        assertArrayEquals(ints(fixture.get("shuffle1000")), perm);
        int[] small = range(3);
        rng.shuffle(small);
        assertArrayEquals(ints(fixture.get("shuffle3")), small);
    }

    @Test
    void rejectsSeedsNumpyRejects() {
        assertThrows(IllegalArgumentException.class, () -> new NumpyRandomState(-1));
        assertThrows(IllegalArgumentException.class, () -> new NumpyRandomState(1L << 32));
        assertThrows(IllegalArgumentException.class, () -> new NumpyRandomState(new long[0]));
    }

    @Test
    void randomIntervalStaysInBoundsAboveThirtyTwoBits() {
        NumpyRandomState rng = new NumpyRandomState(3);
        long max = (1L << 40) + 12345;
        for (int i = 0; i < 10_000; i++) {
            long v = rng.randomInterval(max);
            if (v < 0 || v > max) {
                throw new AssertionError("out of range: " + v);
            }
        }
        assertEquals(0, rng.randomInterval(0));
    }

    static void assertBits(double[] expected, double[] actual) {
        assertEquals(expected.length, actual.length, "length");
        for (int i = 0; i < expected.length; i++) {
            assertEquals(Double.doubleToRawLongBits(expected[i]), Double.doubleToRawLongBits(actual[i]),
                "draw " + i + ": expected " + expected[i] + " got " + actual[i]);
        }
    }

    private static double[] draw(int n, java.util.function.DoubleSupplier s) {
        double[] out = new double[n];
        for (int i = 0; i < n; i++) {
            out[i] = s.getAsDouble();
        }
        return out;
    }

    private static int[] range(int n) {
        int[] a = new int[n];
        for (int i = 0; i < n; i++) {
            a[i] = i;
        }
        return a;
    }

    private static int[] ints(JsonNode array) {
        int[] out = new int[array.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = array.get(i).asInt();
        }
        return out;
    }
}
