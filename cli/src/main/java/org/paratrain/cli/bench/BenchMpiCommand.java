package org.paratrain.cli.bench;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.paratrain.cli.Main;
import org.paratrain.comm.BackendException;
import org.paratrain.comm.Communicator;
import org.paratrain.comm.JobLaunch;
import org.paratrain.train.Backend;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code paratrain bench mpi}: MPI latency and bandwidth from paratrain and from a C program
 * built with mpicc, measured alternately in one run on 2 processes.
 */
@Command(name = "mpi", mixinStandardHelpOptions = true,
    description = {"MPI latency and bandwidth beside a C program built with mpicc.",
        "Measures, side by side with a C program built with mpicc: the one-way time of an 8-byte",
        "message, a 1-double allreduce and a 1,000,000-double allreduce, on 2 MPI processes; and the",
        "same on 2 processes over paratrain's TCP transport (the Spark backend's), over loopback."})
final class BenchMpiCommand implements Runnable {
    private static final double LATENCY_TARGET = 1.25;
    private static final double BANDWIDTH_TARGET = 1.1;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Option(names = "--rounds", defaultValue = "3", description = "Alternating C and Java runs (default ${DEFAULT-VALUE}).")
    int rounds;

    @Option(names = "--startup", description = "Instead, time start-up (mpirun to the end of MPI_Init) at 2 and 32 "
        + "ranks, 32 also as 2 processes of 16 ranks, with and without the ranks' ahead-of-time cache.")
    boolean startup;

    @Override
    public void run() {
        if (rounds < 1 || rounds > 20) {
            throw new IllegalArgumentException("--rounds must be in [1, 20], got " + rounds);
        }
        if (startup) {
            startup();
            return;
        }
        Path exe = CReference.build("mpi_bench");
        Map<String, Double> c = new LinkedHashMap<>();
        Map<String, Double> java = new LinkedHashMap<>();
        Map<String, Double> tcp = new LinkedHashMap<>();
        JobLaunch two = new JobLaunch(2, null, List.of(), List.of());
        for (int r = 0; r < rounds; r++) {
            best(c, capture(exe.toString(), two, null));
            best(java, capture(null, two, List.of("bench", "mpi-worker")));
            best(tcp, tcpRun(r));
        }
        var out = spec.commandLine().getOut();
        out.printf(Locale.ROOT, "2 processes, best of %d alternating runs (each the best of 5 repetitions); TCP is "
            + "paratrain's own transport over loopback, whose allreduce is the ring%n", rounds);
        out.println("| measurement | C (mpicc) | paratrain on MPI (Java, FFM) | paratrain on MPI / C | target "
            + "| paratrain over TCP | TCP / C |");
        out.println("|---|---:|---:|---:|---:|---:|---:|");
        row(out, "8-byte ping-pong, one way (us)", "pingpong_us", c, java, tcp, LATENCY_TARGET);
        row(out, "allreduce, 1 double (us)", "allreduce8_us", c, java, tcp, LATENCY_TARGET);
        row(out, "allreduce, 1,000,000 doubles (ms)", "allreduce1m_ms", c, java, tcp, BANDWIDTH_TARGET);
        double mpiRing = java.get("ring1m_ms");
        double tcpRing = tcp.get("ring1m_ms");
        out.printf(Locale.ROOT, "paratrain's ring allreduce of 1,000,000 doubles: %.3f ms on MPI's messages, %.3f ms on "
            + "TCP's (TCP / MPI %.2f); MPI's own allreduce %.3f ms%n", mpiRing, tcpRing, tcpRing / mpiRing,
            java.get("allreduce1m_ms"));
        out.printf(Locale.ROOT, "summary: tcp_allreduce1m_ms=%.3f mpi_allreduce1m_ms=%.3f c_allreduce1m_ms=%.3f "
            + "tcp_over_mpi=%.2f tcp_pingpong_us=%.2f mpi_pingpong_us=%.2f%n", tcp.get("allreduce1m_ms"),
            java.get("allreduce1m_ms"), c.get("allreduce1m_ms"), tcp.get("allreduce1m_ms") / java.get("allreduce1m_ms"),
            tcp.get("pingpong_us"), java.get("pingpong_us"));
    }

    /**
     * Two processes of this program meeting over loopback TCP as Spark's tasks do (a rendezvous
     * in this process, a secret of the run's own), measured as the MPI processes are; the
     * figures of rank 0.
     */
    private static Map<String, Double> tcpRun(int round) {
        org.paratrain.comm.tcp.JobKey key = org.paratrain.comm.tcp.JobKey.random("bench-tcp-" + round);
        Process one = null;
        try (org.paratrain.comm.tcp.TcpRendezvous rendezvous = org.paratrain.comm.tcp.TcpRendezvous.open("127.0.0.1", 2,
            key)) {
            ProcessBuilder[] pb = new ProcessBuilder[2];
            for (int r = 0; r < 2; r++) {
                pb[r] = ChildJvm.builder(ChildJvm.command("bench", "tcp-worker", "--rank", Integer.toString(r),
                    "--rendezvous", rendezvous.address(), "--attempt", key.attempt()));
                pb[r].environment().put(TcpWorker.SECRET_VARIABLE, key.secretHex());
            }
            one = pb[1].redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            Runnable unregister = org.paratrain.io.ExitCleanup.stopOnExit(one);
            try {
                CReference.Captured zero = CReference.capture(pb[0], java.time.Duration.ofMinutes(5),
                    "the TCP benchmark's rank 0");
                boolean oneEnded = one.waitFor(30, java.util.concurrent.TimeUnit.SECONDS);
                if (zero.status() != 0 || !oneEnded || one.exitValue() != 0) {
                    throw new BackendException("the TCP benchmark failed: "
                        + zero.text().strip().lines().reduce((a, b) -> b).orElse("no output"));
                }
                return figures(zero.text());
            } finally {
                unregister.run();
            }
        } catch (java.io.IOException e) {
            throw new BackendException("cannot start the TCP benchmark's ranks: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BackendException("interrupted while the TCP benchmark ran");
        } finally {
            if (one != null) {
                one.destroyForcibly();
            }
        }
    }

    private void startup() {
        Backend.prepareMpiStartupCache(Main.class.getName(), List.of("bench", "mpi-selftest", "--train"));
        var out = spec.commandLine().getOut();
        out.println("| ranks | processes x ranks each | ahead-of-time cache | mpirun to exit (s) | slowest rank: JVM "
            + "start to ready (s) |");
        out.println("|---:|---|---|---:|---:|");
        for (int[] layout : new int[][] {{2, 1}, {32, 1}, {2, 16}}) {
            for (boolean aot : new boolean[] {false, true}) {
                JobLaunch launch = new JobLaunch(layout[0], null, List.of(),
                    aot ? List.of() : List.of("-XX:AOTMode=off"), JobLaunch.DEFAULT_TIMEOUT_SECONDS, layout[1]);
                long t0 = System.nanoTime();
                Map<String, Double> f = capture(null, launch, List.of("bench", "mpi-init", "--ranks-per-process",
                    Integer.toString(layout[1])));
                double wall = (System.nanoTime() - t0) / 1e9;
                out.printf(Locale.ROOT, "| %d | %d x %d | %s | %.2f | %.2f |%n", layout[0] * layout[1], layout[0],
                    layout[1], aot ? "yes" : "no", wall, f.getOrDefault("init_ms", Double.NaN) / 1e3);
            }
        }
    }

    private static void row(java.io.PrintWriter out, String what, String key, Map<String, Double> c,
                            Map<String, Double> java, Map<String, Double> tcp, double target) {
        double ratio = java.get(key) / c.get(key);
        out.printf(Locale.ROOT, "| %s | %.3f | %.3f | %.2f | %s %.2f | %.3f | %.2f |%n", what, c.get(key), java.get(key),
            ratio, ratio <= target ? "met, <=" : "missed, <=", target, tcp.get(key), tcp.get(key) / c.get(key));
    }

    private static void best(Map<String, Double> into, Map<String, Double> figures) {
        figures.forEach((k, v) -> into.merge(k, v, Math::min));
    }

    /** Runs the C program ({@code exe}) or paratrain ({@code args}) under mpirun; parses its figures. */
    private static Map<String, Double> capture(String exe, JobLaunch launch, List<String> args) {
        String text = exe != null ? CReference.mpirun(launch, Path.of(exe), List.of())
            : CReference.output(Backend.mpiJobCommand(launch, Main.class.getName(), args));
        return figures(text);
    }

    /** The {@code key value} lines of a measuring program's output. */
    private static Map<String, Double> figures(String text) {
        Map<String, Double> figures = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            String[] kv = line.strip().split(" ");
            if (kv.length == 2 && kv[0].matches("[a-z0-9_]+")) {
                figures.put(kv[0], Double.parseDouble(kv[1]));
            }
        }
        return figures;
    }

    /**
     * Trains the paper's model with master-worker and with every allreduce and the fixed-point
     * sum on this job's ranks, and on rank 0 checks each against the local backend at the same
     * node count (MPI's own allreduce against star): parameters, final loss and every epoch's
     * loss, bit for bit.
     */
    static void trainEveryExchange(boolean rankZero) {
        var data = org.paratrain.cli.experiment.PaperSetup.data();
        var base = org.paratrain.cli.experiment.PaperSetup.config().withNodes(Backend.mpiJobSize());
        List<org.paratrain.train.spec.ExchangeSpec> exchanges = new java.util.ArrayList<>();
        exchanges.add(org.paratrain.train.spec.ExchangeSpec.MASTER_WORKER);
        exchanges.add(org.paratrain.train.spec.ExchangeSpec.parse("master-worker",
            org.paratrain.train.spec.ExchangeSpec.Sum.DEFAULT_FIXED));
        for (String name : org.paratrain.collective.Allreduces.names()) {
            exchanges.add(org.paratrain.train.spec.ExchangeSpec.parse(name,
                org.paratrain.train.spec.ExchangeSpec.Sum.DEFAULT_FIXED));
        }
        for (var e : exchanges) {
            var r = org.paratrain.train.Training.mpi(data, base.withExchange(e),
                org.paratrain.train.TrainingControl.none());
            if (rankZero) {
                var local = e.algorithm().equals("native")
                    ? org.paratrain.train.spec.ExchangeSpec.parse("star", e.sum()) : e;
                sameBits(e + "", org.paratrain.train.Training.local(data, base.withExchange(local)), r);
            }
        }
    }

    private static void sameBits(String what, org.paratrain.train.TrainingResult local,
                                 org.paratrain.train.TrainingResult mpi) {
        boolean same = java.util.Arrays.equals(local.params(), mpi.params())
            && Double.doubleToRawLongBits(local.finalLoss()) == Double.doubleToRawLongBits(mpi.finalLoss())
            && java.util.Arrays.equals(local.history().loss(), mpi.history().loss());
        if (!same) {
            throw new BackendException("training with " + what + " on MPI gave other bits than the local backend: "
                + java.util.Arrays.toString(mpi.params()) + " against " + java.util.Arrays.toString(local.params()));
        }
    }

    /** Runs one allreduce algorithm on integer-valued vectors and checks the exact sums. */
    static void checkAllreduce(Communicator c, org.paratrain.collective.Allreduce a) {
        String name = a.name();
        int p = c.size();
        for (int len : new int[] {0, 1, p + 1, 100_003}) {
            double[] v = new double[len];
            for (int i = 0; i < len; i++) {
                v[i] = c.rank() * 3.0 + i % 100;
            }
            a.allreduce(c, v, 0, len);
            for (int i = 0; i < len; i++) {
                double expected = 3.0 * p * (p - 1) / 2 + (double) p * (i % 100);
                if (v[i] != expected) {
                    throw new BackendException(name + " allreduce of " + len + ": element " + i + " is " + v[i]
                        + ", expected " + expected);
                }
            }
        }
    }

    /** The Java side, run on each MPI rank by {@code bench mpi}. */
    @Command(name = "mpi-worker", hidden = true)
    static final class Worker implements Runnable {
        @Override
        public void run() {
            String figures = MpiBenchmark.run(Backend.mpiWorld());
            if (figures != null) {
                System.out.print(figures);
                System.out.flush();
            }
        }
    }

    /** The TCP side, run on each of the two processes {@code bench mpi} starts for it. */
    @Command(name = "tcp-worker", hidden = true)
    static final class TcpWorker implements Runnable {
        /** The environment variable the job's secret comes in (not the command line, which others can read). */
        static final String SECRET_VARIABLE = "PARATRAIN_BENCH_TCP_SECRET";

        @Option(names = "--rank", required = true)
        int rank;

        @Option(names = "--rendezvous", required = true)
        String rendezvous;

        @Option(names = "--attempt", required = true)
        String attempt;

        @Override
        public void run() {
            String hex = System.getenv(SECRET_VARIABLE);
            if (hex == null) {
                throw new IllegalArgumentException(SECRET_VARIABLE + " is not set (this command is run by bench mpi)");
            }
            org.paratrain.comm.tcp.JobKey key = org.paratrain.comm.tcp.JobKey.fromHex(hex, attempt);
            java.time.Duration timeout = java.time.Duration.ofSeconds(60);
            org.paratrain.comm.tcp.TcpCommunicator comm;
            try (org.paratrain.comm.tcp.TcpEndpoint endpoint = org.paratrain.comm.tcp.TcpEndpoint.listen("127.0.0.1")) {
                List<String> all = org.paratrain.comm.tcp.TcpRendezvous.exchange(rendezvous, rank, 2,
                    endpoint.address(), key, timeout);
                comm = endpoint.connect(rank, all, key, timeout);
            }
            try (comm) {
                org.paratrain.collective.Allreduce ring = org.paratrain.collective.Allreduces.create("ring");
                String figures = MpiBenchmark.run(comm, (v, o, n) -> ring.allreduce(comm, v, o, n));
                comm.barrier();
                if (figures != null) {
                    System.out.print(figures);
                    System.out.flush();
                }
            }
        }
    }

    /**
     * Start-up probe for {@code bench mpi-startup}: initialises MPI and prints, on rank 0, the
     * slowest rank's time from JVM start to the end of MPI_Init.
     */
    @Command(name = "mpi-init", hidden = true)
    static final class InitProbe implements Runnable {
        @Option(names = "--ranks-per-process", defaultValue = "1")
        int ranksPerProcess;

        @Override
        public void run() {
            Communicator c = Backend.mpiWorld();
            if (ranksPerProcess > 1) {   // ready means every rank's thread has started and met the others
                Backend.mpiRanksPerProcess(ranksPerProcess);
                Backend.onMpiRanks(rank -> {
                    rank.barrier();
                    return null;
                });
            }
            double[] ms = {java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime()};
            c.nativeCollectives().orElseThrow().allreduceMax(ms, 0, 1);
            if (c.rank() == 0) {
                System.out.printf(Locale.ROOT, "init_ms %.1f%n", ms[0]);
            }
        }
    }

    /** Checks the MPI binding on every rank of a job: {@code mpirun -np 3 paratrain bench mpi-selftest}. */
    @Command(name = "mpi-selftest", hidden = true)
    static final class SelfTest implements Runnable {
        @Option(names = "--train", description = "Also train the paper's model on the MPI backend.")
        boolean train;

        @Option(names = "--ranks-per-process", defaultValue = "1",
            description = "Ranks each process runs as threads: checks messages within and between processes, and "
                + "every allreduce both flat and in two levels.")
        int ranksPerProcess;

        @Override
        public void run() {
            Communicator c = Backend.mpiWorld();
            Backend.checkRanksPerProcess(ranksPerProcess);
            Backend.mpiRanksPerProcess(ranksPerProcess);
            if (ranksPerProcess == 1) {
                MpiBenchmark.selfTest(c);
                for (String name : org.paratrain.collective.Allreduces.names()) {
                    checkAllreduce(c, org.paratrain.collective.Allreduces.create(name));
                }
            } else {
                Backend.onMpiRanks(rank -> {
                    MpiBenchmark.threadSelfTest(rank);
                    for (String name : org.paratrain.collective.Allreduces.names()) {
                        checkAllreduce(rank, org.paratrain.collective.Allreduces.create(name, rank));
                    }
                    for (String name : org.paratrain.collective.Allreduces.portableNames()) {
                        checkAllreduce(rank, org.paratrain.collective.Allreduces.create(name));
                    }
                    return null;
                });
            }
            if (train) {
                trainEveryExchange(c.rank() == 0);
            }
            if (c.rank() == 0) {
                System.out.println("mpi self-test passed on " + Backend.mpiJobSize() + " ranks ("
                    + (ranksPerProcess == 1 ? "" : c.size() + " processes of " + ranksPerProcess + ", ")
                    + Backend.mpiImplementation() + ")");
            }
        }
    }
}
