package org.paratrain.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.paratrain.model.ConvNet.Pool;
import org.paratrain.model.ConvNet.Shape;
import org.paratrain.model.ConvNet.Stage;

/**
 * Max pooling (branch-free, {@link ConvKernels#pool}) against a reference written here: for
 * each output, the window's pixels in row order, the first strictly largest kept. The data are
 * chosen to break a careless kernel: ties (ReLU's zeros, repeated values), signed zeros, NaNs,
 * infinities; outputs and choices must match bit for bit, in doubles (from an offset) and floats.
 */
class PoolKernelTest {

    @ParameterizedTest(name = "{0}x{1}x{2}, window {3}")
    @CsvSource({"4,4,1,2", "26,26,32,2", "11,11,64,2", "9,9,3,3", "5,7,2,2", "2,3,5,2"})
    void choosesAsTheReferenceDoes(int height, int width, int channels, int p) {
        Shape in = new Shape(height, width, channels);
        Shape out = new Shape(height / p, width / p, channels);
        Stage st = new Stage(new Pool(p), in, out, 0, 0);
        int n = 3;
        int base = 5;
        double[] x = values(new Random(height * 31L + channels), base + n * in.size());
        float[] xf = new float[n * in.size()];
        for (int i = 0; i < xf.length; i++) {
            xf[i] = (float) x[base + i];
        }
        double[] want = new double[n * out.size()];
        int[] wantAt = new int[want.length];
        reference(in, out, p, n, x, base, want, wantAt);

        double[] got = new double[want.length];
        int[] gotAt = new int[want.length];
        ConvKernels.pool(st, p, n, x, base, got, gotAt);
        assertArrayEquals(wantAt, gotAt, "choices, doubles");
        assertBitsEqual(want, got);

        float[] gotF = new float[want.length];
        int[] gotAtF = new int[want.length];
        ConvKernels.pool(st, p, n, xf, gotF, gotAtF);
        double[] wantF = new double[want.length];
        int[] wantAtF = new int[want.length];
        double[] xfd = new double[xf.length];
        for (int i = 0; i < xf.length; i++) {
            xfd[i] = xf[i];
        }
        reference(in, out, p, n, xfd, 0, wantF, wantAtF);
        assertArrayEquals(wantAtF, gotAtF, "choices, floats");
        for (int j = 0; j < wantF.length; j++) {
            assertEquals(Float.floatToRawIntBits((float) wantF[j]), Float.floatToRawIntBits(gotF[j]), "output " + j);
        }
    }

    /** Windows written out: which of equals, signed zeros and NaNs each kernel must pick. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', value = {
        "ties keep the first;     1, 2, 2, 0;       1",
        "-0 before +0 stays -0;   -0.0, 0.0, -1, -2; 0",
        "+0 before -0 stays +0;   0.0, -0.0, -1, -2; 0",
        "NaN first stays;         NaN, 5, 7, 1;     0",
        "NaN later is passed by;  1, NaN, 3, 2;     2",
        "infinity wins;           1, Infinity, 3, 2; 1",
        "all -infinity;           -Infinity, -Infinity, -Infinity, -Infinity; 0"})
    void picksInAWindowWrittenOut(String name, String window, int want) {
        String[] v = window.split(",");
        double[] x = new double[v.length];
        for (int i = 0; i < v.length; i++) {
            x[i] = Double.parseDouble(v[i].strip());
        }
        Stage st = new Stage(new Pool(2), new Shape(2, 2, 1), new Shape(1, 1, 1), 0, 0);
        double[] y = new double[1];
        int[] at = new int[1];
        ConvKernels.pool(st, 2, 1, x, 0, y, at);
        assertEquals(want, at[0], name + ", doubles");
        assertEquals(Double.doubleToRawLongBits(x[want]), Double.doubleToRawLongBits(y[0]), name + ", doubles");
        float[] xf = new float[x.length];
        for (int i = 0; i < x.length; i++) {
            xf[i] = (float) x[i];
        }
        float[] yf = new float[1];
        ConvKernels.pool(st, 2, 1, xf, yf, at);
        assertEquals(want, at[0], name + ", floats");
        assertEquals(Float.floatToRawIntBits(xf[want]), Float.floatToRawIntBits(yf[0]), name + ", floats");
    }

    /** Output j: each window pixel in turn, y then x, taken where strictly larger than the best so far. */
    private static void reference(Shape in, Shape out, int p, int n, double[] x, int base, double[] y, int[] at) {
        int j = 0;
        for (int i = 0; i < n; i++) {
            for (int oy = 0; oy < out.height(); oy++) {
                for (int ox = 0; ox < out.width(); ox++) {
                    for (int c = 0; c < in.channels(); c++) {
                        int best = -1;
                        for (int dy = 0; dy < p; dy++) {
                            for (int dx = 0; dx < p; dx++) {
                                int k = i * in.size() + ((oy * p + dy) * in.width() + ox * p + dx) * in.channels() + c;
                                if (best < 0 || x[base + k] > x[base + best]) {
                                    best = k;
                                }
                            }
                        }
                        y[j] = x[base + best];
                        at[j++] = best;
                    }
                }
            }
        }
    }

    /** Post-ReLU-like values (half zeros), with repeats, signed zeros, NaNs and infinities mixed in. */
    private static double[] values(Random r, int count) {
        double[] special = {0.0, -0.0, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 1.0, 1.0};
        double[] v = new double[count];
        for (int i = 0; i < count; i++) {
            int pick = r.nextInt(10);
            v[i] = pick == 0 ? special[r.nextInt(special.length)] : Math.max(0.0, r.nextGaussian());
        }
        return v;
    }

    private static void assertBitsEqual(double[] want, double[] got) {
        for (int j = 0; j < want.length; j++) {
            assertEquals(Double.doubleToRawLongBits(want[j]), Double.doubleToRawLongBits(got[j]), "output " + j);
        }
    }
}
