package org.paratrain.data;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/** Reads the reference fixtures that scripts/make_fixtures.py made with numpy and scikit-learn. */
final class Fixtures {
    private Fixtures() { }

    static JsonNode load(String name) {
        try (InputStream in = Fixtures.class.getResourceAsStream("/fixtures/" + name)) {
            if (in == null) {
                throw new IllegalStateException("missing test fixture " + name);
            }
            return new ObjectMapper().readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static double[] doubles(JsonNode array) {
        double[] out = new double[array.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = array.get(i).asDouble();
        }
        return out;
    }

    static NumpyRandomState seeded(JsonNode seed) {
        if (seed.isArray()) {
            long[] key = new long[seed.size()];
            for (int i = 0; i < key.length; i++) {
                key[i] = seed.get(i).asLong();
            }
            return new NumpyRandomState(key);
        }
        return new NumpyRandomState(seed.asLong());
    }
}
