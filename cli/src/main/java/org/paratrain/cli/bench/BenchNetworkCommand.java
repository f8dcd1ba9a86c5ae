package org.paratrain.cli.bench;

import static org.paratrain.io.Executables.onPath;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.paratrain.experiment.RunWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code paratrain bench network}: the MLP and the CNN trained across two emulated hosts
 * (network namespaces joined by a link, {@code scripts/multihost-netns.sh}), paratrain's MPI
 * backend beside PyTorch DDP over gloo on the same hosts and link, at each link rate and
 * layout (hosts x ranks a host).
 *
 * <p>Each measurement is its own job: paratrain's ranks run {@link NetworkWorker} under
 * mpirun started in the first host (warm-up, then timed runs in one job, as {@code bench dl}
 * does in one JVM); PyTorch's processes start in each host through the hosts' agent. The
 * share of a step paratrain spends exchanging is what an exchange overlapped with backward
 * could hide at most.
 */
@Command(name = "network", mixinStandardHelpOptions = true,
    description = {"The MLP and the CNN across two emulated hosts joined by a link of a given rate, paratrain's MPI",
        "backend beside PyTorch DDP over gloo on the same hosts (as root: network namespaces, scripts/multihost-netns.sh,",
        "one core a host). Both train the networks of bench dl (float32, Adam, lr 1e-3) on Fashion-MNIST. Prints",
        "samples/s, the ratio, the share of paratrain's step spent exchanging, and a summary line; writes tables and a plot."})
final class BenchNetworkCommand implements Runnable {
    private static final Path FASHION = Path.of("/usr/share/datasets/fashion-mnist");
    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Option(names = "--links", split = ",", defaultValue = "1gbit,unshaped", description = "Link rates as tc spells "
        + "them (100mbit, 1gbit) or unshaped (default ${DEFAULT-VALUE}).")
    List<String> links;

    @Option(names = "--models", split = ",", defaultValue = "mlp,cnn", description = "mlp, cnn or both (default "
        + "${DEFAULT-VALUE}).")
    List<String> models;

    @Option(names = "--layouts", split = ",", defaultValue = "2x1,2x2", description = "Hosts x ranks a host: 2x1 (one "
        + "rank on each of two hosts), 2x2 (two on each) (default ${DEFAULT-VALUE}).")
    List<String> layouts;

    @Option(names = "--precision", defaultValue = "float32", description = "float32 or float64 (default "
        + "${DEFAULT-VALUE}).")
    String precision;

    @Option(names = "--allreduce", split = ",", defaultValue = "ring", description = "paratrain's allreduces, each "
        + "run in turn (default ${DEFAULT-VALUE}; native for the MPI library's own; auto: the ranks measure every one "
        + "on the link and take the fastest, as train does; its pick is compared with the others' rows).")
    List<String> allreduces;

    @Option(names = "--sum", split = ",", defaultValue = "fixed:1,fixed:half", description = "paratrain's sums, each "
        + "run beside the same DDP figure (default ${DEFAULT-VALUE}: the exact one-word sum, and the exact sum of half "
        + "a word a value, half the bytes on the link; float for a plain floating-point allreduce, whose bits depend "
        + "on the layout).")
    List<String> sums;

    @Option(names = "--bucket-size", split = ",", defaultValue = "0,65536", description = "paratrain's buckets sent "
        + "during backward, in parameters, each run beside the others (default ${DEFAULT-VALUE}: the whole gradient "
        + "after backward, and buckets of the size train's auto takes where a host has a core to spare; auto: train's "
        + "own choice on the hosts).")
    List<String> buckets;

    @Option(names = "--batch-size", defaultValue = "256", description = "Global batch (default ${DEFAULT-VALUE}).")
    int batch;

    // 100, not 20: on the unshaped link a step's exchange is about a millisecond and one step in ten or twenty
    // takes 2-4, so the mean of 20 moved by a fifth from run to run, as much as the cost model may be off.
    @Option(names = "--steps", defaultValue = "100", description = "Timed steps a run (default ${DEFAULT-VALUE}).")
    int steps;

    @Option(names = "--rounds", defaultValue = "3", description = "Timed runs of each side, DDP's spread between "
        + "paratrain's; the best counts (default ${DEFAULT-VALUE}).")
    int rounds;

    @Option(names = "--out", defaultValue = "results/bench-network", description = "Where the table goes as "
        + "bench-network.csv, .json and .md, with the ratios plotted as bench-network.png and .svg and the "
        + "measured exchange beside the cost model's as bench-network-model.png and .svg (default ${DEFAULT-VALUE}).")
    Path outDir;

    @Option(names = "--python", defaultValue = "/usr/bin/python3", description = "The Python with torch (default "
        + "${DEFAULT-VALUE}).")
    String python;

    @Option(names = "--script", description = "scripts/multihost-netns.sh (default: the one beside this build, or in "
        + "the current directory).")
    Path script;

    @Override
    public void run() {
        check();
        if (!onPath("mpirun")) {
            throw new org.paratrain.comm.BackendException("bench network needs Open MPI's mpirun: apt-get install "
                + "openmpi-bin libopenmpi-dev");
        }
        PrintWriter out = spec.commandLine().getOut();
        Path netns = NetworkHosts.script(script);
        String torch = BenchDlCommand.torchVersion(python);
        preamble(out, torch);
        List<NetworkRow> rows = measure(netns, torch, out, spec.commandLine().getErr());
        out.println();
        out.println(NetworkReport.sameBits(rows));
        NetworkReport.write(rows, torch, outDir, batch, steps, rounds, precision);
        out.println("wrote " + outDir.resolve("bench-network") + ".csv, .json, .md, .png and .svg, and "
            + outDir.resolve("bench-network-model") + ".png and .svg");
        out.println(NetworkReport.summary(rows));
        out.flush();
    }

    /** What is measured and how the columns read, before the table's header. */
    private void preamble(PrintWriter out, String torch) {
        out.printf(Locale.ROOT, "bench network: 2 emulated hosts (network namespaces, one core each where there are "
            + "cores for it), batch %d, Adam (lr 1e-3), %s, %d timed steps a run, best of %d; %s%n", batch, precision,
            steps, rounds, Files.isDirectory(FASHION) ? "Fashion-MNIST" : "random images");
        out.println(torch == null ? "  PyTorch: not available (" + python + " has no torch); paratrain alone"
            : "  PyTorch " + torch + " DDP over gloo (its own bucketing), one process a rank, one thread each");
        out.println("  exchange share: the part of paratrain's run spent exchanging gradients, what an exchange "
            + "overlapped with backward could hide at most; cost model: the step's exchange predicted from the bare "
            + "allreduce timed on the same ranks and link, call by call, and the sum's conversions timed out of the caches "
            + "(with buckets, the part the last block's backward does not "
            + "hide, priced bucket by bucket), and the timed steps' failed guesses, each priced as a redo of the sum: the "
            + "mean step from the mean calls and rounds, the typical step from the median ones; "
            + "timed: each run's steps after " + NetworkWorker.UNTIMED + " untimed ones, as DDP's after its 3 warm-up "
            + "steps (the first step agrees the sum's grid); exchange: step by step the least over the ranks (the rank "
            + "that reaches it last waits for no one), the optimizer's update apart (update_ms_per_step in the CSV), "
            + "the mean and the median over the steps; error: the model's mean step against the mean, its typical "
            + "step against the median; wait: rank 0's exchange beyond both, waiting for a slower rank");
        out.println();
        out.println(NetworkReport.HEADER);
        out.flush();
    }

    /**
     * Every link's rows, each link's hosts made and removed around its measurements; each row
     * printed as it comes. The work directory (DDP's script, the jobs' files) is removed after.
     */
    private List<NetworkRow> measure(Path netns, String torch, PrintWriter out, PrintWriter err) {
        List<NetworkRow> rows = new ArrayList<>();
        Path work = org.paratrain.io.AtomicFiles.stagingDirectory(Path.of(System.getProperty("java.io.tmpdir"),
            "paratrain-bench-network"));
        try {
            Path ddp = work.resolve("ddp_bench.py");
            DdpRuns ddpRuns = new DdpRuns(python, precision, batch, steps, FASHION, err);
            try (InputStream in = BenchNetworkCommand.class.getResourceAsStream("/python/ddp_bench.py")) {
                Files.copy(in, ddp);
            }
            for (String link : links) {
                Map<String, String> env = NetworkHosts.environment(link);
                NetworkLifecycle.whileUp(netns, env, work, () -> {
                    for (String model : models) {
                        for (String layout : layouts) {
                            err.printf(Locale.ROOT, "  %s: %s on 2 hosts x %d...%n", link, model,
                                Integer.parseInt(layout.substring(2)));
                            err.flush();
                            for (NetworkRow r : group(netns, env, work, ddpRuns, ddp, torch != null, link, model,
                                layout)) {
                                rows.add(r);
                                out.println(NetworkReport.line(r));
                            }
                            out.flush();
                        }
                    }
                });
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } finally {
            org.paratrain.io.AtomicFiles.deleteQuietly(work);
        }
        return rows;
    }

    /** One paratrain job: its sum, bucket size and allreduce. */
    private record Job(String sum, String bucket, String allreduce) { }

    /**
     * The rows of one link, model and layout: paratrain's job for each sum, bucket size and
     * allreduce, and DDP's runs between them, the first before the first, so that a slow or fast
     * spell of the VM (20-30% here, for seconds) falls on both sides.
     */
    private List<NetworkRow> group(Path netns, Map<String, String> env, Path work, DdpRuns ddpRuns, Path ddp,
                                   boolean torch, String link, String model, String layout) throws IOException {
        int k = Integer.parseInt(layout.substring(2));
        List<Job> jobs = new ArrayList<>();
        for (String sum : sums) {
            for (String bucket : buckets) {
                for (String allreduce : allreduces) {
                    jobs.add(new Job(sum, bucket, allreduce));
                }
            }
        }
        double t = torch ? 0.0 : Double.NaN;
        int ddpRounds = 0;
        List<JsonNode> results = new ArrayList<>();
        for (int j = 0; j < jobs.size() || !Double.isNaN(t) && ddpRounds < rounds; j++) {
            if (!Double.isNaN(t) && ddpRounds < rounds && (j >= jobs.size() || j * rounds / jobs.size() >= ddpRounds)) {
                t = Math.max(t, ddpRuns.once(ddp, model, k, ddpRounds++));   // NaN: failed, and no more runs
            }
            if (j < jobs.size()) {
                Job job = jobs.get(j);
                results.add(paratrain(netns, env, work, link, model, k, job.sum(), job.bucket(), job.allreduce()));
            }
        }
        List<NetworkRow> rows = new ArrayList<>();
        for (int j = 0; j < jobs.size(); j++) {
            Job job = jobs.get(j);
            JsonNode p = results.get(j);
            rows.add(new NetworkRow(link, model, layout, job.sum(), job.allreduce(),
                p.path("allreduce").asText(job.allreduce()), job.bucket(), p.path("samples_per_s").asDouble(),
                p.path("exchange_share").asDouble(), t,
                p.path("params_hash").asText(), p.path("exchange_ms_per_step").asDouble(),
                p.path("wait_ms_per_step").asDouble(Double.NaN),
                p.path("predicted_exchange_ms_per_step").asDouble(Double.NaN), p));
        }
        return rows;
    }

    /** paratrain's measurement: an MPI job of 2 processes of {@code k} ranks, launched in the first host. */
    private JsonNode paratrain(Path netns, Map<String, String> env, Path work, String link, String model, int k,
                               String sum, String bucket, String allreduce) throws IOException {
        String tag = model + "-" + k + "-" + sum.replace(':', '-') + "-" + bucket + "-" + allreduce;
        Path result = work.resolve("paratrain-" + link + "-" + tag + ".json");
        Files.deleteIfExists(result);
        ObjectNode job = RunWriter.json().createObjectNode().put("model", model).put("precision", precision)
            .put("batch", batch).put("steps", steps).put("rounds", rounds).put("ranks_per_process", k)
            .put("block_size", blockSize()).put("allreduce", allreduce).put("sum", sum)
            .put("bucket_size", bucket.equals("auto") ? org.paratrain.train.spec.RunSpec.BUCKET_AUTO
                : Integer.parseInt(bucket))
            .put("hostfile", NetworkHosts.DIR.resolve("hostfile").toString()).put("agent", NetworkHosts.DIR.resolve("rsh-agent").toString())
            .put("result", result.toString());
        Path jobFile = work.resolve("job-" + tag + ".json");
        RunWriter.json().writeValue(jobFile.toFile(), job);
        List<String> cmd = new ArrayList<>(List.of("exec", ProcessHandle.current().info().command().orElse("java"),
            "--enable-native-access=ALL-UNNAMED", "-cp", NetworkHosts.classPath(), NetworkWorker.class.getName(),
            jobFile.toString()));
        NetworkHosts.shell(netns, env, cmd, "train " + model + " across the hosts");
        if (!Files.isRegularFile(result)) {
            throw new org.paratrain.comm.BackendException("bench network: the paratrain job ended without writing "
                + result);
        }
        return RunWriter.json().readTree(result.toFile());
    }

    /** {@return the block size of every layout: the global batch over the most ranks asked for} */
    private int blockSize() {
        int most = layouts.stream().mapToInt(l -> 2 * Integer.parseInt(l.substring(2))).max().orElse(2);
        return batch / most;
    }

    private void check() {
        for (String m : models) {
            if (!m.equals("mlp") && !m.equals("cnn")) {
                throw new IllegalArgumentException("--models must be mlp, cnn or both, got '" + m + "'");
            }
        }
        for (String l : layouts) {
            if (!l.matches("2x[1-4]")) {
                throw new IllegalArgumentException("--layouts must be like 2x1 or 2x2 (two hosts, 1 to 4 ranks each), got '"
                    + l + "'");
            }
            if (batch % (2 * Integer.parseInt(l.substring(2))) != 0) {
                throw new IllegalArgumentException("--batch-size " + batch + " must divide over the " + 2
                    * Integer.parseInt(l.substring(2)) + " ranks of --layouts " + l);
            }
        }
        for (String l : links) {
            if (!l.equals("unshaped") && !l.matches("[1-9][0-9]*(kbit|mbit|gbit)")) {
                throw new IllegalArgumentException("--links must be rates like 100mbit or 1gbit, or unshaped, got '" + l
                    + "'");
            }
        }
        org.paratrain.train.spec.ModelNames.precision(precision);
        for (String b : buckets) {
            if (!b.equals("auto") && !b.matches("[0-9]{1,9}")) {
                throw new IllegalArgumentException("--bucket-size must be numbers of parameters (0: no overlap) or auto, "
                    + "got '" + b + "'");
            }
        }
        for (String allreduce : allreduces) {
            if (!allreduce.equals("auto") && !org.paratrain.collective.Allreduces.names().contains(allreduce)) {
                throw new IllegalArgumentException("--allreduce must be among " + String.join(", ",
                    org.paratrain.collective.Allreduces.names()) + " or auto, got '" + allreduce + "'");
            }
            for (String sum : sums) {
                try {
                    org.paratrain.train.spec.ExchangeSpec.parse(allreduce, org.paratrain.train.spec.ExchangeSpec.Sum.parse(sum));
                } catch (RuntimeException e) {
                    throw new IllegalArgumentException("--allreduce " + allreduce + " --sum " + sum + ": " + e.getMessage());
                }
            }
        }
        if (batch < 2 || steps < 1 || rounds < 1) {
            throw new IllegalArgumentException("--batch-size must be at least 2, --steps and --rounds at least 1");
        }
        if ((long) batch * (steps + 3) > 60_000) {
            throw new IllegalArgumentException("--batch-size x (--steps + 3) must be at most the 60,000 training images, "
                + "got " + batch + " x " + (steps + 3));
        }
        if (Files.exists(outDir) && !Files.isDirectory(outDir)) {
            throw new IllegalArgumentException("--out " + outDir + " is not a directory");
        }
    }
}
