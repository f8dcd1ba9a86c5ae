package org.paratrain.cli.bench;


import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import org.paratrain.collective.AllreduceHalves;
import org.paratrain.data.Dataset;
import org.paratrain.data.IdxFormat;
import org.paratrain.model.MultilayerPerceptron;
import org.paratrain.optim.Adam;
import org.paratrain.optim.LearningRateSchedule;
import org.paratrain.train.LossReduction;
import org.paratrain.train.Training;
import org.paratrain.train.spec.ExchangeSpec;
import org.paratrain.train.spec.ModelNames;
import org.paratrain.train.spec.ModelSpec;
import org.paratrain.train.spec.OptimizerSpec;
import org.paratrain.train.spec.RunSpec;
import org.paratrain.train.spec.TrainSpec;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code paratrain bench mlp}: one training step of a 784-256-10 MLP (batch 256, Adam) beside
 * numpy doing the same step in the same run, and MLP training throughput at 1 and 2 ranks.
 */
@Command(name = "mlp", mixinStandardHelpOptions = true,
    description = {"Time an MLP training step beside numpy, and MLP throughput at 1 and 2 ranks.",
        "Times one training step of a 784-256-10 ReLU MLP with batch 256 and Adam, beside numpy (the same",
        "step, resources/python/mlp_step.py) in the same run; and samples per second of MLP training at 1 and 2",
        "ranks on Fashion-MNIST (or random images when it is not installed)."})
final class BenchMlpCommand implements Runnable {
    private static final Path FASHION = Path.of("/usr/share/datasets/fashion-mnist");

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Option(names = "--samples", defaultValue = "12000", description = "Samples for the throughput run (default ${DEFAULT-VALUE}).")
    int samples;

    @Option(names = "--batch-size", defaultValue = "1024", description = "Global batch of the throughput run (default ${DEFAULT-VALUE}).")
    int batch;

    @Option(names = "--allreduce", defaultValue = "ring", description = "Exchange of the throughput run (default ${DEFAULT-VALUE}).")
    String allreduce;

    @Option(names = "--sum", split = ",", defaultValue = "fixed,fixed:1,float,blocks",
        description = "Sums to compare in the throughput run, comma-separated (default ${DEFAULT-VALUE}).")
    List<String> sums;

    @Option(names = "--precision", split = ",", defaultValue = "float64",
        description = "Training precisions to compare in the throughput run, comma-separated: float64, float32 "
            + "(default ${DEFAULT-VALUE}).")
    List<String> precisions;

    @Override
    public void run() {
        var out = spec.commandLine().getOut();
        double java = javaStepMs();
        NumpyStep plain = numpyStep(Map.of());
        NumpyStep fair = numpyStep(Map.of("MALLOC_MMAP_THRESHOLD_", "268435456", "MALLOC_TRIM_THRESHOLD_", "268435456"));
        out.printf(Locale.ROOT, "one step, 784-256-10 MLP, batch 256, Adam, one BLAS thread each: paratrain %.3f ms%n",
            java);
        if (plain == null || fair == null) {
            out.println("  numpy: not available (install python3-numpy)");
        } else {
            out.printf(Locale.ROOT, "  numpy as written %.3f ms; with glibc's malloc thresholds raised to 256 MB (no page "
                + "faults on fresh temporaries, as a careful numpy user would run it) %.3f ms%n", plain.ms(), fair.ms());
            out.printf(Locale.ROOT, "  paratrain / numpy = %.2f against the fair numpy (target <= 1.0; %.2f against numpy as "
                + "written)%n", java / fair.ms(), java / plain.ms());
            out.printf(Locale.ROOT, "  OpenBLAS kernels: paratrain %s, numpy %s (%s, numpy %s); OPENBLAS_CORETYPE %s%n",
                MultilayerPerceptron.blasKernel(), fair.kernel(), fair.python(), fair.version(),
                System.getenv("OPENBLAS_CORETYPE") == null ? "unset" : "= " + System.getenv("OPENBLAS_CORETYPE"));
        }
        Dataset data = data();
        out.printf(Locale.ROOT, "training throughput on %s (%d samples, batch %d, %s; samples/s, best of 3):%n",
            Files.isDirectory(FASHION) ? "Fashion-MNIST" : "random images", data.samples(), batch, allreduce);
        for (String name : sums) {
            ExchangeSpec.Sum sum = ExchangeSpec.Sum.parse(name);
            // Sharded too where the allreduce comes in halves that run here, and the sum is one vector.
            boolean shardable = sum != ExchangeSpec.Sum.BLOCKS && AllreduceHalves.portableNames().contains(allreduce);
            for (boolean shard : shardable ? new boolean[] {false, true} : new boolean[] {false}) {
                for (String precision : precisions) {
                    MultilayerPerceptron.Precision p = org.paratrain.train.spec.ModelNames.precision(precision);
                    double one = throughput(data, 1, sum, shard, p);
                    double two = throughput(data, 2, sum, shard, p);
                    out.printf(Locale.ROOT, "  sum %-8s %-9s %s1 rank %7.0f, 2 ranks %7.0f, ratio %.2f%n", name + ",",
                        shard ? "sharded:" : "whole:", precisions.size() > 1 ? precision + ": " : "", one, two,
                        two / one);
                }
            }
        }
    }

    private static double javaStepMs() {
        int batch = 256;
        Random rnd = new Random(1);
        double[] x = new double[batch * 784];
        double[] y = new double[batch];
        for (int i = 0; i < x.length; i++) {
            x[i] = rnd.nextDouble();
        }
        for (int i = 0; i < batch; i++) {
            y[i] = rnd.nextInt(10);
        }
        Dataset d = new Dataset(x, y, batch, 784);
        MultilayerPerceptron m = new MultilayerPerceptron(784, new int[] {256}, 10,
            MultilayerPerceptron.Activation.RELU);
        double[] w = new double[m.parameterCount()];
        double[] g = new double[w.length];
        m.initialize(w, 1);
        Adam adam = Adam.withDefaults(LearningRateSchedule.constant(1e-3));
        double best = Double.MAX_VALUE;
        for (int r = 0; r < 60; r++) {
            long t0 = System.nanoTime();
            java.util.Arrays.fill(g, 0.0);
            m.lossAndGradient(d, 0, batch, w, g, 0);
            adam.step(w, g);
            best = Math.min(best, (System.nanoTime() - t0) / 1e6);
        }
        return best;
    }

    /** numpy's step: best milliseconds, its BLAS kernel, the interpreter and numpy's version. */
    record NumpyStep(double ms, String kernel, String python, String version) { }

    /** Debian's python3 when it has numpy (it links the system OpenBLAS, as paratrain does), else the one on PATH. */
    private static String python() {
        return Files.isExecutable(Path.of("/usr/bin/python3")) ? "/usr/bin/python3" : "python3";
    }

    /** Runs the numpy step with {@code env} added (one BLAS thread); null where numpy is missing. */
    private static NumpyStep numpyStep(Map<String, String> env) {
        try {
            Path script = Files.createTempFile("mlp_step", ".py");
            script.toFile().deleteOnExit();
            try (InputStream in = BenchMlpCommand.class.getResourceAsStream("/python/mlp_step.py")) {
                Files.copy(in, script, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
            ProcessBuilder pb = new ProcessBuilder(python(), script.toString(), "60").redirectErrorStream(true);
            pb.environment().put("OPENBLAS_NUM_THREADS", "1");
            pb.environment().putAll(env);
            Process p = pb.start();
            String text = new String(p.getInputStream().readAllBytes());
            if (p.waitFor() != 0 || !text.contains("step_ms ")) {
                return null;
            }
            return new NumpyStep(Double.parseDouble(field(text, "step_ms")), field(text, "corename"), python(),
                field(text, "numpy"));
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    private static String field(String text, String key) {
        return text.lines().filter(l -> l.startsWith(key + " ")).map(l -> l.substring(key.length() + 1).strip())
            .findFirst().orElse("unknown");
    }

    private Dataset data() {
        return images(samples);
    }

    /** {@code samples} Fashion-MNIST training images (random ones of the same shape where it is not installed). */
    static Dataset images(int samples) {
        if (samples < 512) {
            throw new IllegalArgumentException("--samples must be at least 512, got " + samples);
        }
        if (Files.isDirectory(FASHION)) {
            Dataset all = IdxFormat.read(FASHION.resolve("train-images-idx3-ubyte.gz"),
                FASHION.resolve("train-labels-idx1-ubyte.gz"));
            int n = Math.min(samples, all.samples());
            return new Dataset(java.util.Arrays.copyOf(all.x(), n * 784), java.util.Arrays.copyOf(all.y(), n), n, 784);
        }
        Random rnd = new Random(2);
        double[] x = new double[samples * 784];
        double[] y = new double[samples];
        for (int i = 0; i < x.length; i++) {
            x[i] = rnd.nextDouble();
        }
        for (int i = 0; i < samples; i++) {
            y[i] = rnd.nextInt(10);
        }
        return new Dataset(x, y, samples, 784);
    }

    /**
     * The benchmark's network: 784-256-10, ReLU, Adam at 1e-3, mean loss, batches drawn
     * from seed 1, one epoch on one node.
     */
    static TrainSpec mlp(int batch, int blockSize, String exchange) {
        ModelSpec net = new ModelSpec.Mlp(List.of(256), MultilayerPerceptron.Activation.RELU,
            MultilayerPerceptron.Head.SOFTMAX, 10);
        return new TrainSpec(net, OptimizerSpec.gd(1e-3).withMethod(OptimizerSpec.Method.ADAM),
            ExchangeSpec.parse(exchange), new RunSpec(new RunSpec.Nodes.Count(1), 1, batch, 1, LossReduction.MEAN,
                blockSize));
    }

    /** Samples per second of one epoch after a warm-up epoch (best of three). */
    private double throughput(Dataset data, int nodes, ExchangeSpec.Sum sum, boolean shard,
                              MultilayerPerceptron.Precision precision) {
        if (batch < 2 || batch > data.samples()) {
            throw new IllegalArgumentException("--batch-size must be in [2, " + data.samples() + "], got " + batch);
        }
        // Two blocks per batch: one per rank at 2 ranks, and the smallest table to reduce.
        ExchangeSpec exchange = ExchangeSpec.parse(allreduce, sum);
        TrainSpec base = mlp(batch, batch / 2, allreduce);
        TrainSpec spec = base.withModel(base.model().withPrecision(precision)).withNodes(nodes)
            .withExchange(shard ? exchange.sharded() : exchange);
        Training.local(data, spec);
        double best = Double.MAX_VALUE;
        for (int r = 0; r < 3; r++) {
            best = Math.min(best, Training.local(data, spec).trainSeconds());
        }
        return (double) (data.samples() / batch * batch) / best;
    }
}
