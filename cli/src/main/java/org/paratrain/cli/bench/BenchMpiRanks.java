package org.paratrain.cli.bench;

import java.util.List;
import java.util.Locale;
import org.paratrain.comm.BackendException;
import org.paratrain.comm.Communicator;
import org.paratrain.train.Backend;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The hidden commands that {@code bench mpi} and {@code mpirun ... bench mpi-selftest} run on each
 * rank, with the checks they run there: they live in the job's processes, not in the command line
 * that times them and prints the table, so they are apart from {@link BenchMpiCommand}.
 */
final class BenchMpiRanks {
    private BenchMpiRanks() { }

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
