package org.paratrain.cli.bench;


import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.paratrain.data.Dataset;
import org.paratrain.model.MultilayerPerceptron;
import org.paratrain.train.Training;
import org.paratrain.train.spec.ExchangeSpec;
import org.paratrain.train.spec.ModelNames;
import org.paratrain.train.spec.ModelSpec;
import org.paratrain.train.spec.TrainSpec;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code paratrain bench dl}: deep-learning training throughput beside PyTorch
 * DistributedDataParallel, in the same run: the same networks, batch, optimizer and data,
 * at each worker count and precision, paratrain's run and PyTorch's alternating.
 */
@Command(name = "dl", mixinStandardHelpOptions = true,
    description = {"Training throughput of the MLP and the CNN beside PyTorch DDP, side by side in one run.",
        "Both train the 784-256-10 MLP or the CNN conv:32:3,pool:2,conv:64:3,pool:2,dense:128 with Adam (lr 1e-3)",
        "on Fashion-MNIST (random images where it is not installed), the global batch split over the workers,",
        "one thread a worker: paratrain's local ranks, and PyTorch DDP processes over gloo",
        "(resources/python/ddp_bench.py). Runs alternate; each side's best is kept. Where the Python has no",
        "torch (apt-get install python3-torch), paratrain's figures are printed alone."})
final class BenchDlCommand implements Runnable {
    /** The CNN both sides train. */
    static final String CNN = "conv:32:3,pool:2,conv:64:3,pool:2,dense:128";
    private static final Path FASHION = Path.of("/usr/share/datasets/fashion-mnist");

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Option(names = "--models", split = ",", defaultValue = "mlp,cnn", description = "mlp, cnn or both (default ${DEFAULT-VALUE}).")
    List<String> models;

    @Option(names = "--precision", split = ",", defaultValue = "float32,float64",
        description = "Precisions, comma-separated (default ${DEFAULT-VALUE}).")
    List<String> precisions;

    @Option(names = "--workers", split = ",", defaultValue = "1,2", description = "Worker counts (default ${DEFAULT-VALUE}).")
    List<Integer> workers;

    @Option(names = "--batch-size", defaultValue = "256", description = "Global batch (default ${DEFAULT-VALUE}).")
    int batch;

    @Option(names = "--steps", defaultValue = "20", description = "Timed steps a run (default ${DEFAULT-VALUE}).")
    int steps;

    @Option(names = "--rounds", defaultValue = "3", description = "Alternating runs of each side (default ${DEFAULT-VALUE}).")
    int rounds;

    @Option(names = "--shard-optimizer", description = "Also time paratrain with the optimizer's state and update "
        + "sharded over the workers (reduce-scatter, update a shard, allgather), a row of its own.")
    boolean shard;

    @Option(names = "--out", defaultValue = "results/bench-dl", description = "Where the table goes as "
        + "bench-dl.csv, .json and .md, with the ratios plotted as bench-dl.png and .svg (default ${DEFAULT-VALUE}).")
    Path outDir;

    @Option(names = "--python", defaultValue = "/usr/bin/python3",
        description = "The Python with torch (default ${DEFAULT-VALUE}: Debian's, whose torch links the system BLAS).")
    String python;

    /** One row of the table: both sides' best samples per second (NaN where PyTorch did not run). */
    record Row(String model, String precision, int workers, double paratrain, double torch, double plain) {
        /** {@return the target paratrain / PyTorch (float32 only), NaN where none} */
        double target() {
            return precision.equals("float32") ? workers == 1 ? 1.0 : 1.5 : Double.NaN;
        }
    }

    /** What paratrain runs: the model, its precision, the worker count, and whether the optimizer is sharded. */
    private record Setup(String model, String precision, int workers, boolean sharded) {
        String label() {
            return model + (sharded ? " (sharded)" : "");
        }
    }

    @Override
    public void run() {
        check();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Dataset data = BenchMlpCommand.images(Math.max(512, batch * steps));
        data = new Dataset(java.util.Arrays.copyOf(data.x(), batch * steps * 784),
            java.util.Arrays.copyOf(data.y(), batch * steps), batch * steps, 784);     // exactly the timed steps
        String torch = torchVersion(python);
        out.printf(Locale.ROOT, "bench dl: batch %d, Adam (lr 1e-3), %d timed steps a run, one thread a worker, %s; "
            + "samples/s, best of %d alternating runs%n", batch, steps,
            Files.isDirectory(FASHION) ? "Fashion-MNIST" : "random images", rounds);
        out.println(torch == null ? "  PyTorch: not available (" + python + " has no torch; apt-get install python3-torch); "
            + "paratrain alone" : "  PyTorch " + torch + " DistributedDataParallel, gloo, one process a worker; "
            + "at 1 worker also the model without DDP, as one process would train it");
        out.println();
        out.println("| model | precision | workers | paratrain | PyTorch DDP | paratrain / DDP | PyTorch, no DDP | "
            + "paratrain / no DDP |");
        out.println("|---|---|---:|---:|---:|---:|---:|---:|");
        out.flush();
        List<Row> rows = new ArrayList<>();
        for (String model : models) {
            for (String precision : precisions) {
                for (int w : workers) {
                    for (boolean sharded : shard && w > 1 ? new boolean[] {false, true} : new boolean[] {false}) {
                        Setup setup = new Setup(model, precision, w, sharded);
                        err.printf(Locale.ROOT, "  running %s %s at %d worker%s...%n", setup.label(), precision, w,
                            w == 1 ? "" : "s");
                        err.flush();
                        Row r = measure(data, setup, torch != null);
                        rows.add(r);
                        out.printf(Locale.ROOT, "| %s | %s | %d | %.0f | %s | %s | %s | %s |%n", setup.label(), precision,
                            w, r.paratrain(), dash(r.torch(), "%.0f"), dash(r.paratrain() / r.torch(), "%.2f"),
                            dash(r.plain(), "%.0f"), dash(r.paratrain() / r.plain(), "%.2f"));
                        out.flush();
                    }
                }
            }
        }
        out.println();
        out.printf(Locale.ROOT, "targets (float32): paratrain / PyTorch >= 1.0 at 1 worker, >= 1.5 at 2 workers%n");
        write(rows, torch);
        out.println("wrote " + outDir.resolve("bench-dl") + ".csv, .json, .md" + (torch == null ? "" : ", .png and .svg"));
    }

    /** The rows as CSV, JSON and Markdown, and where PyTorch ran, the ratios as a plot. */
    private void write(List<Row> rows, String torch) {
        StringBuilder csv = new StringBuilder("model,precision,workers,paratrain_samples_per_s,pytorch_samples_per_s,"
            + "ratio,target,pytorch_no_ddp_samples_per_s,ratio_no_ddp\n");
        StringBuilder md = new StringBuilder("| model | precision | workers | paratrain | PyTorch DDP | paratrain / DDP "
            + "| target | PyTorch, no DDP | paratrain / no DDP |\n|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
        com.fasterxml.jackson.databind.node.ObjectNode json = org.paratrain.experiment.RunWriter.json().createObjectNode();
        json.put("batch_size", batch).put("steps", steps).put("rounds", rounds).put("pytorch", torch);
        var array = json.putArray("rows");
        for (Row r : rows) {
            double ratio = r.paratrain() / r.torch();
            csv.append(String.format(Locale.ROOT, "%s,%s,%d,%.1f,%s,%s,%s,%s,%s%n", r.model(), r.precision(),
                r.workers(), r.paratrain(), num(r.torch(), "%.1f"), num(ratio, "%.3f"), num(r.target(), "%.1f"),
                num(r.plain(), "%.1f"), num(r.paratrain() / r.plain(), "%.3f")));
            md.append(String.format(Locale.ROOT, "| %s | %s | %d | %.0f | %s | %s | %s | %s | %s |%n", r.model(),
                r.precision(), r.workers(), r.paratrain(), dash(r.torch(), "%.0f"), dash(ratio, "%.2f"),
                dash(r.target(), "%.1f"), dash(r.plain(), "%.0f"), dash(r.paratrain() / r.plain(), "%.2f")));
            var o = array.addObject().put("model", r.model()).put("precision", r.precision())
                .put("workers", r.workers()).put("paratrain_samples_per_s", r.paratrain());
            if (!Double.isNaN(r.torch())) {
                o.put("pytorch_samples_per_s", r.torch()).put("ratio", ratio);
            }
            if (!Double.isNaN(r.plain())) {
                o.put("pytorch_no_ddp_samples_per_s", r.plain()).put("ratio_no_ddp", r.paratrain() / r.plain());
            }
        }
        // The tables and the figure together or not at all, as every result of paratrain.
        java.util.List<String> files = new java.util.ArrayList<>(java.util.List.of("bench-dl.csv", "bench-dl.md",
            "bench-dl.json"));
        if (torch != null) {
            files.addAll(java.util.List.of("bench-dl.png", "bench-dl.svg"));
        }
        try (org.paratrain.io.StagedFiles staged = org.paratrain.io.StagedFiles.into(outDir)) {
            Path stage = staged.dir();
            org.paratrain.io.AtomicFiles.writeText(stage.resolve("bench-dl.csv"), w -> w.write(csv.toString()));
            org.paratrain.io.AtomicFiles.writeText(stage.resolve("bench-dl.md"), w -> w.write(md.toString()));
            org.paratrain.io.AtomicFiles.writeBytes(stage.resolve("bench-dl.json"),
                o -> org.paratrain.experiment.RunWriter.json().writeValue(o, json));
            if (torch != null) {
                org.paratrain.cli.experiment.Plots.save(org.paratrain.cli.experiment.Plots.ratios(
                    rows.stream().map(r -> r.model().replace(" (sharded)", " sharded") + " " + r.precision().replace("float", "f")
                        + " " + r.workers() + "w").toList(),
                    rows.stream().map(r -> r.paratrain() / r.torch()).toList(),
                    rows.stream().map(Row::target).toList(),
                    "paratrain against PyTorch " + torch + " DDP (batch " + batch + ", Adam)",
                    "paratrain / PyTorch samples per second"), stage, "bench-dl");
            }
            staged.publish(files);
        }
    }

    static String dash(double v, String format) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, format, v);
    }

    static String num(double v, String format) {
        return Double.isNaN(v) ? "" : String.format(Locale.ROOT, format, v);
    }

    private void check() {
        for (String m : models) {
            if (!m.equals("mlp") && !m.equals("cnn")) {
                throw new IllegalArgumentException("--models must be mlp, cnn or both, got '" + m + "'");
            }
        }
        precisions.forEach(ModelNames::precision);
        for (int w : workers) {
            if (w < 1 || w > 64 || batch % w != 0) {
                throw new IllegalArgumentException("--workers must be from 1 to 64 and divide --batch-size " + batch
                    + ", got " + w);
            }
        }
        if (Files.exists(outDir) && !Files.isDirectory(outDir)) {
            throw new IllegalArgumentException("--out " + outDir + " is not a directory");
        }
        if ((long) batch * (steps + 3) > 60_000) {
            throw new IllegalArgumentException("--batch-size x (--steps + 3) must be at most the 60,000 training images, "
                + "got " + batch + " x " + (steps + 3));
        }
        if (batch < 2 || steps < 1 || rounds < 1) {
            throw new IllegalArgumentException("--batch-size must be at least 2, --steps and --rounds at least 1");
        }
    }

    /** {@code rounds} alternating runs of paratrain and PyTorch; each side's best. */
    private Row measure(Dataset data, Setup setup, boolean torch) {
        String model = setup.model();
        String precision = setup.precision();
        int w = setup.workers();
        TrainSpec s = spec(model, precision, w);
        s = setup.sharded() ? s.withExchange(s.exchange().sharded()) : s;
        Training.local(data, s);     // warm-up: the JIT compiles the step's loops (PyTorch's are compiled ahead of time)
        double best = 0;
        double bestTorch = torch ? 0 : Double.NaN;
        double bestPlain = torch && w == 1 ? 0 : Double.NaN;
        for (int r = 0; r < rounds; r++) {
            best = Math.max(best, (double) batch * steps / Training.local(data, s).trainSeconds());
            if (torch) {
                bestTorch = Math.max(bestTorch, torchRun(model, precision, w, true));   // NaN once a run failed
                if (w == 1) {
                    bestPlain = Math.max(bestPlain, torchRun(model, precision, w, false));
                }
            }
        }
        return new Row(setup.label(), precision, w, best, bestTorch, bestPlain);
    }

    /** One epoch of {@code steps} batches, one block a worker a batch, the ring allreduce with the default sum. */
    private TrainSpec spec(String model, String precision, int w) {
        return spec(model, precision, w, batch);
    }

    /** As above, for a global batch of {@code batch} samples ({@code bench network}'s too). */
    static TrainSpec spec(String model, String precision, int w, int batch) {
        ModelSpec m = model.equals("mlp") ? new ModelSpec.Mlp(List.of(256), MultilayerPerceptron.Activation.RELU,
            MultilayerPerceptron.Head.SOFTMAX, 10) : new ModelSpec.Cnn(ModelNames.cnnLayers(CNN), null, 10);
        TrainSpec base = BenchMlpCommand.mlp(batch, batch / w, "ring");
        return base.withModel(m.withPrecision(ModelNames.precision(precision))).withNodes(w)
            .withExchange(ExchangeSpec.parse("ring"));
    }

    /**
     * {@return torch's version, or null where {@code python} cannot import it within 2 minutes}
     * @param python the interpreter
     */
    static String torchVersion(String python) {
        try {
            Path log = Files.createTempFile("paratrain-torch", ".log");
            try {
                Process p = new ProcessBuilder(python, "-c", "import torch; print(torch.__version__)")
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
                if (!p.waitFor(120, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    return null;
                }
                return p.exitValue() == 0 ? Files.readString(log).strip() : null;
            } finally {
                Files.deleteIfExists(log);
            }
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** One PyTorch run's samples per second: DDP, or (one worker) the plain model a single-process user trains. */
    private double torchRun(String model, String precision, int w, boolean ddp) {
        try {
            Path script = Files.createTempFile("ddp_bench", ".py");
            try {
                try (InputStream in = BenchDlCommand.class.getResourceAsStream("/python/ddp_bench.py")) {
                    Files.copy(in, script, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                }
                List<String> cmd = new ArrayList<>(List.of(python, script.toString(), model, precision,
                    String.valueOf(w), String.valueOf(batch), String.valueOf(steps)));
                if (Files.isDirectory(FASHION)) {
                    cmd.add(FASHION.resolve("train-images-idx3-ubyte.gz").toString());
                    cmd.add(FASHION.resolve("train-labels-idx1-ubyte.gz").toString());
                }
                ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
                pb.environment().put("OMP_NUM_THREADS", "1");
                pb.environment().put("OPENBLAS_NUM_THREADS", "1");
                pb.environment().put("DDP_BENCH_WRAP", ddp ? "1" : "0");
                Path log = Files.createTempFile("ddp_bench", ".log");
                pb.redirectOutput(log.toFile());
                Process p = pb.start();
                boolean ended = p.waitFor(10, TimeUnit.MINUTES);
                if (!ended) {
                    p.descendants().forEach(ProcessHandle::destroyForcibly);
                    p.destroyForcibly();
                }
                String text = Files.readString(log);
                Files.deleteIfExists(log);
                if (!ended || p.exitValue() != 0 || !text.contains("samples_per_s ")) {
                    spec.commandLine().getErr().println("  the PyTorch run failed (" + (ended ? "" : "no end after 10 "
                        + "minutes; ") + text.lines().reduce((a, b) -> b).orElse("no output") + "); its row shows -");
                    return Double.NaN;
                }
                return Double.parseDouble(text.lines().filter(l -> l.startsWith("samples_per_s "))
                    .findFirst().orElseThrow().substring(14).strip());
            } finally {
                Files.deleteIfExists(script);
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted");
        }
    }
}
