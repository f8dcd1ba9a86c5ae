package org.paratrain.model;

import java.util.Arrays;
import org.paratrain.model.ConvNet.Shape;
import org.paratrain.model.ConvNet.Stage;

/**
 * The data-movement kernels of a {@link ConvNet}: im2col and its transpose, max pooling and
 * its backward pass, each in double (the float64 passes, {@link ConvNet}) and in float (the
 * float32 passes, {@link ConvFloatPasses}).
 *
 * <p>Each kernel is written twice on purpose, once a type, side by side: the JIT vectorises a
 * loop over {@code float[]} in twice the lanes of one over {@code double[]}, and a generic
 * version over boxed or wrapped arrays would not vectorise at all. Keep the pairs alike.
 *
 * <p>Layout: images height x width x channels, channels last, a chunk's samples one after
 * another; a patch row holds {@code k} runs of {@code k x c} values and then a 1 for the bias.
 */
final class ConvKernels {
    private ConvKernels() { }

    /** Each output pixel's {@code k x k x c} input patch as a row of {@code cols}: k runs of k*c values. */
    static void im2col(Stage st, int k, int n, double[] in, int inBase, double[] cols) {
        Shape is = st.in();
        Shape os = st.out();
        int run = k * is.channels();
        int r = 0;
        for (int i = 0; i < n; i++) {
            int sample = inBase + i * is.size();
            for (int oy = 0; oy < os.height(); oy++) {
                for (int ox = 0; ox < os.width(); ox++) {
                    for (int ky = 0; ky < k; ky++) {
                        System.arraycopy(in, sample + ((oy + ky) * is.width() + ox) * is.channels(), cols,
                            r + ky * run, run);
                    }
                    cols[r + st.patch()] = 1.0;        // the bias's input
                    r += st.patch() + 1;
                }
            }
        }
    }

    /** As above, in floats. */
    static void im2col(Stage st, int k, int n, float[] in, float[] cols) {
        Shape is = st.in();
        Shape os = st.out();
        int run = k * is.channels();
        int r = 0;
        for (int i = 0; i < n; i++) {
            int sample = i * is.size();
            for (int oy = 0; oy < os.height(); oy++) {
                for (int ox = 0; ox < os.width(); ox++) {
                    for (int ky = 0; ky < k; ky++) {
                        System.arraycopy(in, sample + ((oy + ky) * is.width() + ox) * is.channels(), cols,
                            r + ky * run, run);
                    }
                    cols[r + st.patch()] = 1f;        // the bias's input
                    r += st.patch() + 1;
                }
            }
        }
    }

    /** Adds each row of {@code cols} back into the patch it came from: the transpose of im2col. */
    static void col2im(Stage st, int k, int n, double[] cols, double[] in) {
        Shape is = st.in();
        Shape os = st.out();
        int run = k * is.channels();
        Arrays.fill(in, 0, n * is.size(), 0.0);
        int r = 0;
        for (int i = 0; i < n; i++) {
            int sample = i * is.size();
            for (int oy = 0; oy < os.height(); oy++) {
                for (int ox = 0; ox < os.width(); ox++) {
                    for (int ky = 0; ky < k; ky++) {
                        int at = sample + ((oy + ky) * is.width() + ox) * is.channels();
                        int from = r + ky * run;
                        for (int j = 0; j < run; j++) {
                            in[at + j] += cols[from + j];
                        }
                    }
                    r += st.patch() + 1;
                }
            }
        }
    }

    /** As above, in floats. */
    static void col2im(Stage st, int k, int n, float[] cols, float[] in) {
        Shape is = st.in();
        Shape os = st.out();
        int run = k * is.channels();
        Arrays.fill(in, 0, n * is.size(), 0f);
        int r = 0;
        for (int i = 0; i < n; i++) {
            int sample = i * is.size();
            for (int oy = 0; oy < os.height(); oy++) {
                for (int ox = 0; ox < os.width(); ox++) {
                    for (int ky = 0; ky < k; ky++) {
                        int at = sample + ((oy + ky) * is.width() + ox) * is.channels();
                        int from = r + ky * run;
                        for (int j = 0; j < run; j++) {
                            in[at + j] += cols[from + j];
                        }
                    }
                    r += st.patch() + 1;
                }
            }
        }
    }

    /**
     * Max pooling of {@code p x p} windows, stride {@code p}: each output the window's largest
     * value, the first in the window's row order among equals (a NaN first in its window stays),
     * and in {@code choice} where in {@code in} (less {@code inBase}) it was.
     *
     * <p>Branch-free on purpose: which pixel of a window is largest is data, and as an {@code if}
     * the JIT compiled it to a branch mispredicted about as often as not, a fifth of the float32
     * CNN's step. The running choice is an index (an integer select, a conditional move) and the
     * value is read back from it: the same outputs and choices (the figures: docs/benchmarks.md).
     */
    static void pool(Stage st, int p, int n, double[] in, int inBase, double[] out, int[] choice) {
        Shape is = st.in();
        Shape os = st.out();
        int ch = is.channels();
        int j = 0;
        for (int i = 0; i < n; i++) {
            int sample = i * is.size();
            for (int oy = 0; oy < os.height(); oy++) {
                for (int ox = 0; ox < os.width(); ox++) {
                    // The window's first pixel, then each other pixel's channels in turn: contiguous runs.
                    int first = sample + ((oy * p) * is.width() + ox * p) * ch;
                    for (int c = 0; c < ch; c++) {
                        choice[j + c] = first + c;
                    }
                    for (int dy = 0; dy < p; dy++) {
                        for (int dx = dy == 0 ? 1 : 0; dx < p; dx++) {
                            int at = sample + ((oy * p + dy) * is.width() + ox * p + dx) * ch;
                            for (int c = 0; c < ch; c++) {
                                int best = choice[j + c];
                                choice[j + c] = in[inBase + at + c] > in[inBase + best] ? at + c : best;
                            }
                        }
                    }
                    for (int c = 0; c < ch; c++) {
                        out[j + c] = in[inBase + choice[j + c]];
                    }
                    j += ch;
                }
            }
        }
    }

    /** As above, in floats. */
    static void pool(Stage st, int p, int n, float[] in, float[] out, int[] choice) {
        Shape is = st.in();
        Shape os = st.out();
        int ch = is.channels();
        int j = 0;
        for (int i = 0; i < n; i++) {
            int sample = i * is.size();
            for (int oy = 0; oy < os.height(); oy++) {
                for (int ox = 0; ox < os.width(); ox++) {
                    int first = sample + ((oy * p) * is.width() + ox * p) * ch;
                    for (int c = 0; c < ch; c++) {
                        choice[j + c] = first + c;
                    }
                    for (int dy = 0; dy < p; dy++) {
                        for (int dx = dy == 0 ? 1 : 0; dx < p; dx++) {
                            int at = sample + ((oy * p + dy) * is.width() + ox * p + dx) * ch;
                            for (int c = 0; c < ch; c++) {
                                int best = choice[j + c];
                                choice[j + c] = in[at + c] > in[best] ? at + c : best;
                            }
                        }
                    }
                    for (int c = 0; c < ch; c++) {
                        out[j + c] = in[choice[j + c]];
                    }
                    j += ch;
                }
            }
        }
    }

    /** The pool's backward pass: each output's delta to where its maximum was, 0 elsewhere. */
    static void unpool(Stage st, int n, int[] choice, double[] d, double[] prev) {
        Arrays.fill(prev, 0, n * st.in().size(), 0.0);
        for (int j = 0; j < n * st.out().size(); j++) {
            prev[choice[j]] += d[j];
        }
    }

    /** As above, in floats. */
    static void unpool(Stage st, int n, int[] choice, float[] d, float[] prev) {
        Arrays.fill(prev, 0, n * st.in().size(), 0f);
        for (int j = 0; j < n * st.out().size(); j++) {
            prev[choice[j]] += d[j];
        }
    }
}
