package org.paratrain.cli.bench;

import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.paratrain.cli.Main;
import org.paratrain.data.Dataset;
import org.paratrain.cli.experiment.Statistics;
import org.paratrain.train.Training;
import org.paratrain.train.TrainingResult;
import org.paratrain.train.spec.ModelSpec;
import org.paratrain.train.spec.TrainSpec;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code paratrain bench kernels}: full-batch linear regression at 1 rank, time per epoch,
 * beside a plain C loop doing the same epoch and the memory's read bandwidth, all measured in
 * the same run.
 */
@Command(name = "kernels", mixinStandardHelpOptions = true,
    description = {"Time an epoch of linear regression at 1 rank beside C and memory bandwidth.",
        "Full-batch gradient descent of the paper's model at 1 rank for each shape,",
        "alternating with the same epoch as a plain C loop (resources/c/kernels.c,",
        "gcc -O3 -march=native, built now); medians of the runs. The read bandwidth",
        "of one core, first: a C sum over 1 GB, best of 5. Then the same epochs with",
        "the Vector API's kernels, in a JVM started with its module."})
final class BenchKernelsCommand implements Runnable {
    /** Bytes a run of one shape reads, about: enough epochs for a tenth of a second or more. */
    private static final double BYTES_PER_RUN = 3e9;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Option(names = "--shapes", split = ",", defaultValue = "500x1,20000x10,1000000x100",
        description = "Samples x features, comma-separated (default ${DEFAULT-VALUE}).")
    List<String> shapes;

    @Option(names = "--repeats", defaultValue = "5", description = "Timed runs of each side per shape (default ${DEFAULT-VALUE}).")
    int repeats;

    @Option(names = "--no-c", description = "Do not build and run the C reference.")
    boolean noC;

    @Option(names = "--no-vector", description = "Do not time the Vector API's kernels in a second JVM.")
    boolean noVector;

    @Option(names = "--stream-mb", defaultValue = "1000",
        description = "Megabytes the bandwidth measurement reads, far more than the caches (default ${DEFAULT-VALUE}).")
    int streamMb;

    /**
     * One shape's medians, microseconds per epoch (NaN without C), the two final losses, and the
     * median with the Vector API's kernels (NaN where not measured).
     */
    private record Row(int samples, int features, int epochs, double paratrainUs, double cUs, double loss,
                       double cLoss, double vectorUs) {
        Row withVector(double us) {
            return new Row(samples, features, epochs, paratrainUs, cUs, loss, cLoss, us);
        }
    }

    @Override
    public void run() {
        if (repeats < 1 || streamMb < 1) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), repeats < 1
                ? "--repeats must be at least 1, got " + repeats : "--stream-mb must be at least 1, got " + streamMb);
        }
        List<int[]> parsed = shapes.stream().map(this::shape).toList();
        boolean c = !noC && CReference.gccAvailable();
        Path exe = c ? CReference.buildNative("kernels") : null;
        double stream = exe != null ? value(CReference.output(List.of(exe.toString(), "stream",
            Integer.toString(streamMb), "5")), "read_gbs") : KernelData.javaReadGbs(streamMb);
        List<Row> rows = new ArrayList<>();
        long start = System.nanoTime();
        for (int[] s : parsed) {
            rows.add(measure(s[0], s[1], exe));
        }
        String vectorNote = null;
        if (!noVector && org.paratrain.model.Kernels.name().equals("scalar")) {
            if (java.lang.module.ModuleFinder.ofSystem().find("jdk.incubator.vector").isEmpty()) {
                vectorNote = "Vector API: not measured (this Java runtime has no jdk.incubator.vector module)";
            } else {
                // The child repeats these runs without C: it may take as long as they did, and more to start.
                java.time.Duration limit = java.time.Duration.ofMinutes(5).plusNanos(3 * (System.nanoTime() - start));
                try {
                    rows = withVector(rows, limit);
                } catch (VectorRunFailed e) {
                    vectorNote = "Vector API: not measured (" + e.getMessage() + ")";
                }
            }
        }
        print(rows, stream, exe != null);
        if (vectorNote != null) {
            spec.commandLine().getOut().println(vectorNote);
        }
    }

    /** The second JVM failed or outlived its time: the scalar figures are still printed. */
    private static final class VectorRunFailed extends RuntimeException {
        private static final long serialVersionUID = 1L;

        VectorRunFailed(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * The same epochs in a JVM started with the Vector API's module ({@link VectorRun}), which must
     * end with this JVM's final loss to the bit: the two kernels do the same arithmetic.
     */
    private List<Row> withVector(List<Row> rows, java.time.Duration limit) {
        List<String> cmd = new ArrayList<>(ChildJvm.command("bench", "kernels-vector", "--shapes",
            String.join(",", shapes), "--repeats", Integer.toString(repeats)));
        // The module, and not a -Dparatrain.scalar=true passed on from this JVM (the last -D wins).
        cmd.add(1, "--add-modules=jdk.incubator.vector");
        int main = cmd.indexOf(Main.class.getName());
        cmd.add(main, "-Dparatrain.scalar=false");
        String printed;
        try {
            printed = ChildJvm.outputOf("the second JVM", limit, cmd);
        } catch (org.paratrain.comm.BackendException e) {
            throw new VectorRunFailed(e.getMessage());
        }
        if (!text(printed, "vector_kernels").equals(org.paratrain.model.Kernels.VECTOR_API)) {
            throw new VectorRunFailed("the second JVM ran the " + text(printed, "vector_kernels") + " kernels");
        }
        List<Row> out = new ArrayList<>();
        for (Row r : rows) {
            String shape = r.samples + "x" + r.features;
            double loss = Double.longBitsToDouble(Long.parseUnsignedLong(text(printed, "vector_loss_bits " + shape),
                16));
            if (Double.doubleToRawLongBits(loss) != Double.doubleToRawLongBits(r.loss)) {
                throw new org.paratrain.comm.BackendException("bench kernels: " + shape + " ended with final loss "
                    + loss + " with the Vector API and " + r.loss + " without; they must be the same bits");
            }
            out.add(r.withVector(Double.parseDouble(text(printed, "vector_us " + shape))));
        }
        return out;
    }

    /** The text after {@code key} on the line of {@code out} that starts with it. */
    private static String text(String out, String key) {
        return out.lines().filter(l -> l.startsWith(key + " ")).map(l -> l.substring(key.length()).strip()).findFirst()
            .orElseThrow(() -> new org.paratrain.comm.BackendException("bench kernels: the Vector API's run printed "
                + "no " + key + ": " + out.strip()));
    }

    private int[] shape(String text) {
        String[] p = text.strip().toLowerCase(Locale.ROOT).split("x");
        try {
            int n = Integer.parseInt(p[0].strip());
            int d = Integer.parseInt(p[1].strip());
            if (p.length == 2 && n >= 4 && d >= 1 && (long) n * d <= Integer.MAX_VALUE) {
                return new int[] {n, d};
            }
        } catch (NumberFormatException | ArrayIndexOutOfBoundsException e) {
            // reported below
        }
        throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--shapes: '" + text
            + "' is not SAMPLESxFEATURES with at least 4 samples and 1 feature, e.g. 20000x10");
    }

    /** Alternates paratrain's runs (after one untimed, for the JIT) and the C program's; returns the medians. */
    private Row measure(int n, int d, Path exe) {
        Dataset data = KernelData.generate(n, d);
        double bytes = 8.0 * n * (d + 1);
        int epochs = (int) Math.max(5, Math.min(20_000, BYTES_PER_RUN / bytes));
        double lr = 0.5 / n;           // the Hessian's largest eigenvalue is about 2n/3 for these data
        TrainSpec train = TrainSpec.paper().withModel(new ModelSpec.Linear(false)).withEpochs(epochs)
            .withLearningRate(lr);
        Training.local(data, train.withEpochs(Math.max(2, epochs / 4)));
        double[] java = new double[repeats];
        double[] c = new double[repeats];
        double loss = Double.NaN;
        double cLoss = Double.NaN;
        for (int r = 0; r < repeats; r++) {
            TrainingResult result = Training.local(data, train);
            java[r] = result.trainSeconds() * 1e6 / epochs;
            loss = result.finalLoss();
            if (exe != null) {
                String out = CReference.output(List.of(exe.toString(), "train", Integer.toString(n),
                    Integer.toString(d), Integer.toString(epochs), Double.toString(lr)));
                c[r] = value(out, "epoch_us");
                cLoss = value(out, "loss");
            }
        }
        return new Row(n, d, epochs, Statistics.median(java), exe == null ? Double.NaN : Statistics.median(c),
            loss, cLoss, Double.NaN);
    }

    /** {@return the number after {@code key} in the C program's output} */
    private static double value(String out, String key) {
        return out.lines().filter(l -> l.startsWith(key + " ")).mapToDouble(l -> Double.parseDouble(l.substring(
            key.length()).strip())).findFirst().orElseThrow(() -> new IllegalStateException("the C reference printed no "
            + key + ": " + out.strip()));
    }

    private void print(List<Row> rows, double stream, boolean c) {
        PrintWriter out = spec.commandLine().getOut();
        out.printf(Locale.ROOT, "linear regression, full batch, 1 rank (master-worker), median of %d runs alternating"
            + " with C; %d cores; 2 MB pages: paratrain %s, C %s; paratrain's kernels: %s%s%n", repeats,
            Runtime.getRuntime().availableProcessors(), hugePages() ? "yes" : "no", c ? "where the OS allows" : "-",
            org.paratrain.model.Kernels.name(), rows.stream().anyMatch(r -> !Double.isNaN(r.vectorUs))
                ? "; the Vector API's in a second JVM, started with its module, after these runs" : "");
        boolean v = rows.stream().anyMatch(r -> !Double.isNaN(r.vectorUs));
        out.println("| shape | epochs | paratrain us/epoch | C us/epoch | paratrain / C (target <= 1) |"
            + (v ? " Vector API us/epoch | Vector API / C |" : ""));
        out.println("|------:|-------:|-------------------:|-----------:|-----------------------------:|"
            + (v ? "--------------------:|---------------:|" : ""));
        double worst = 0;
        for (Row r : rows) {
            out.printf(Locale.ROOT, "| %,d x %d | %d | %s | %s | %s |%s%n", r.samples, r.features, r.epochs,
                us(r.paratrainUs), c ? us(r.cUs) : "-", c ? String.format(Locale.ROOT, "%.2f", r.paratrainUs / r.cUs)
                    : "-", v ? String.format(Locale.ROOT, " %s | %s |", us(r.vectorUs), c
                    ? String.format(Locale.ROOT, "%.2f", r.vectorUs / r.cUs) : "-") : "");
            worst = Math.max(worst, Math.abs(r.loss - r.cLoss) / Math.abs(r.cLoss));
        }
        out.printf(Locale.ROOT, "read bandwidth of one core (%s, best of 5 over %d MB): %.1f GB/s%n",
            c ? "C sum" : "Java sum, gcc not found", streamMb, stream);
        for (Row r : rows) {
            if ((long) r.samples * r.features >= 50_000_000L) {
                double gb = 8.0 * r.samples * (r.features + 1) / 1e9;
                out.printf(Locale.ROOT, "%,d x %d reads %.0f MB an epoch: paratrain %.1f GB/s = %.0f%% of it "
                    + "(target >= 70%%)%s%s%n", r.samples, r.features, gb * 1e3, gb / (r.paratrainUs * 1e-6),
                    100 * gb / (r.paratrainUs * 1e-6) / stream, Double.isNaN(r.vectorUs) ? ""
                        : String.format(Locale.ROOT, ", with the Vector API %.1f GB/s = %.0f%%",
                        gb / (r.vectorUs * 1e-6), 100 * gb / (r.vectorUs * 1e-6) / stream),
                    c ? String.format(Locale.ROOT, ", C %.0f%%", 100 * gb / (r.cUs * 1e-6) / stream) : "");
            }
        }
        out.println(c ? String.format(Locale.ROOT, "final losses agree with C's to %.1g (relative): the same "
            + "computation", worst) : "C: not measured (" + (noC ? "--no-c" : "gcc is not installed") + ")");
    }

    private static String us(double v) {
        return String.format(Locale.ROOT, v < 10 ? "%.3f" : v < 1000 ? "%.1f" : "%,.0f", v);
    }

    /** Whether this JVM was asked for transparent huge pages (the launcher does it where the OS allows). */
    private static boolean hugePages() {
        return ManagementFactory.getRuntimeMXBean().getInputArguments().contains("-XX:+UseTransparentHugePages");
    }

    /**
     * The Vector API's half of {@code bench kernels}, in a JVM started with its module: times
     * paratrain alone, as the parent does, and prints {@code vector_us SHAPE} and
     * {@code vector_loss_bits SHAPE} for each shape.
     */
    @Command(name = "kernels-vector", hidden = true)
    static final class VectorRun implements Runnable {
        @Option(names = "--shapes", split = ",", required = true)
        List<String> shapes;

        @Option(names = "--repeats", required = true)
        int repeats;

        @Override
        public void run() {
            BenchKernelsCommand bench = new BenchKernelsCommand();
            bench.repeats = repeats;
            System.out.println("vector_kernels " + org.paratrain.model.Kernels.name());
            for (String shape : shapes) {
                String[] p = shape.strip().toLowerCase(Locale.ROOT).split("x");
                int n = Integer.parseInt(p[0].strip());
                int d = Integer.parseInt(p[1].strip());
                Row r = bench.measure(n, d, null);
                System.out.printf(Locale.ROOT, "vector_us %dx%d %.6f%nvector_loss_bits %dx%d %x%n", n, d, r.paratrainUs,
                    n, d, Double.doubleToRawLongBits(r.loss));
            }
            System.out.flush();
        }
    }
}
