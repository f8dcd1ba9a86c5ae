package org.paratrain.cli;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.paratrain.comm.BackendException;
import org.paratrain.comm.JobLaunch;
import org.paratrain.comm.JobOutcome;
import org.paratrain.train.Backend;
import picocli.CommandLine.Option;

/** Where ranks run, and how an MPI job is started. */
public final class BackendOptions {
    /** Options as picocli fills them in; the commands take this class as a mixin. */
    public BackendOptions() { }

    @Option(names = "--backend", defaultValue = "local",
        description = "Where ranks run: local (threads of this JVM, default), mpi (MPI processes, started "
            + "with mpirun unless this command already runs under mpirun) or spark (train only: the tasks of one "
            + "barrier stage of Spark, which reads --data; see docs/spark.md).")
    String backend;

    @Option(names = "--master", paramLabel = "URL", description = "With --backend spark: Spark's master, e.g. "
        + "local[4] or spark://host:7077 (default local[N] for --nodes N, else local[*]).")
    String master;

    @Option(names = "--spark-conf", paramLabel = "KEY=VALUE", description = "With --backend spark: a Spark "
        + "setting for the job, e.g. spark.executor.memory=4g (repeatable).")
    java.util.Map<String, String> sparkConf;

    @Option(names = "--spark-submit", paramLabel = "PATH", arity = "0..1", fallbackValue = "",
        description = "With --backend spark: start the driver with a Spark installation's spark-submit (PATH, "
            + "or $SPARK_HOME/bin/spark-submit when no PATH is given), in client mode: the cluster's own Spark, "
            + "its spark-defaults.conf and its masters (yarn, k8s://...) then apply.")
    String sparkSubmit;

    /** Whether the command takes {@code --backend spark} ({@code train} alone). */
    boolean sparkAllowed;

    @Option(names = "--hostfile", description = "With --backend mpi: mpirun's hostfile, to run on several machines.")
    Path hostfile;

    @Option(names = "--mpirun-args", description = "With --backend mpi: extra arguments for mpirun, e.g. "
        + "\"--mca btl_vader_single_copy_mechanism none\".")
    String mpirunArgs;

    @Option(names = "--comm-timeout", paramLabel = "SECONDS", defaultValue = "300",
        description = "How long a rank waits for another (a message, a barrier, an allreduce) before it ends the "
            + "job with a line naming the rank that stopped answering and the epoch; on both backends "
            + "(default ${DEFAULT-VALUE}).")
    double commTimeout;

    @Option(names = "--ranks-per-process", paramLabel = "K|auto", defaultValue = "1",
        description = "With --backend mpi: ranks each MPI process runs as threads (1 to 64, or auto: one process "
            + "per core when ranks outnumber cores). They reach each other through shared memory and the other "
            + "processes through MPI; ranks, sharding and results are as with one rank per process "
            + "(default ${DEFAULT-VALUE}).")
    String ranksPerProcess;

    /**
     * Checks the backend's name and the deadline.
     *
     * @return true for the MPI backend
     */
    public boolean isMpi() {
        JobLaunch.checkTimeout(commTimeout);
        if (!backend.equals("spark")) {
            String given = master != null ? "--master" : sparkConf != null ? "--spark-conf"
                : sparkSubmit != null ? "--spark-submit" : null;
            if (given != null) {
                throw new IllegalArgumentException(given + " has no effect without --backend spark");
            }
        }
        parseRanksPerProcess(true);
        return switch (backend) {
            case "local" -> false;
            case "spark" -> {
                if (!sparkAllowed) {
                    throw new IllegalArgumentException("--backend spark is for paratrain train; this command runs on "
                        + "--backend local or mpi");
                }
                yield false;
            }
            case "mpi" -> true;
            default -> throw new IllegalArgumentException("--backend must be local, mpi or spark, got '" + backend
                + "'");
        };
    }

    /** {@return true for the Spark backend, which only {@code train} has} */
    boolean isSpark() {
        return backend.equals("spark");
    }

    /**
     * {@return how to start a job of {@code processes} ranks with these options (making the ranks' start-up cache first)}
     * @param processes ranks of the job
     */
    public JobLaunch launchSpec(int processes) {
        Backend.prepareMpiStartupCache(Main.class.getName(), List.of("bench", "mpi-selftest", "--train"));
        List<String> extra = mpirunArgs == null || mpirunArgs.isBlank() ? List.of()
            : Arrays.asList(mpirunArgs.strip().split("\\s+"));
        return new JobLaunch(processes, hostfile, extra, javaOptions(), commTimeout);
    }

    /** {@return the options of {@code PARATRAIN_JAVA_OPTS}, which the launcher gives its JVM, for the ranks' JVMs} */
    public static List<String> javaOptions() {
        String opts = System.getenv("PARATRAIN_JAVA_OPTS");
        return opts == null || opts.isBlank() ? List.of() : Arrays.asList(opts.strip().split("\\s+"));
    }

    /**
     * {@return how to start the jobs of a sweep over {@code nodes}: at most the
     * {@code --ranks-per-process} given (auto: that of the largest node count) ranks a process}
     * @param nodes the node counts of the sweep
     */
    public JobLaunch sweepLaunchSpec(int[] nodes) {
        int most = java.util.Arrays.stream(nodes).max().orElse(1);
        int k = "auto".equals(ranksPerProcess) ? autoRanksPerProcess(most, Runtime.getRuntime().availableProcessors())
            : parseRanksPerProcess(true);
        JobLaunch one = launchSpec(1);
        return new JobLaunch(1, one.hostfile(), one.mpirunArgs(), one.jvmArgs(), one.commTimeout(), k);
    }

    /**
     * On a rank of an MPI job: applies {@code --comm-timeout} to this process's communicator and
     * {@code --ranks-per-process} to its layout ({@code auto} is resolved before launching).
     */
    void configureRank() {
        Backend.mpiCommTimeout(commTimeout);
        Backend.mpiRanksPerProcess(parseRanksPerProcess(false));
    }

    /**
     * {@return the ranks each process runs for a job of {@code nodes} ranks}
     * {@code auto}: 1 when every rank can have a core of this machine, otherwise the fewest
     * ranks a process that leave no more processes than cores.
     *
     * @param nodes the job's ranks
     * @throws IllegalArgumentException naming the options, if {@code nodes} is not a multiple of it
     */
    int ranksPerProcess(int nodes) {
        int k = "auto".equals(ranksPerProcess) ? autoRanksPerProcess(nodes, Runtime.getRuntime().availableProcessors())
            : parseRanksPerProcess(true);
        if (nodes % k != 0) {
            throw new IllegalArgumentException("--nodes " + nodes + " is not a multiple of --ranks-per-process " + k
                + ": every process holds the same number of ranks");
        }
        return k;
    }

    /**
     * {@return for {@code nodes} ranks on {@code cores} cores: the smallest divisor K of
     * {@code nodes} with {@code nodes / K <= cores}, or, where none is small enough, the largest}
     * @param nodes the job's ranks
     * @param cores the cores of this machine
     */
    static int autoRanksPerProcess(int nodes, int cores) {
        int largest = 1;
        for (int k = 1; k <= Math.min(nodes, Backend.MAX_RANKS_PER_PROCESS); k++) {
            if (nodes % k == 0) {
                if (nodes / k <= cores) {
                    return k;
                }
                largest = k;
            }
        }
        return largest;
    }

    private int parseRanksPerProcess(boolean autoAllowed) {
        if ("auto".equals(ranksPerProcess)) {
            if (autoAllowed) {
                return 1;
            }
            throw new IllegalArgumentException("--ranks-per-process auto is decided before launching; under your own "
                + "mpirun give a number");
        }
        int k;
        try {
            k = Integer.parseInt(ranksPerProcess.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--ranks-per-process must be a whole number from 1 to 64 or auto, got '"
                + ranksPerProcess + "'");
        }
        Backend.checkRanksPerProcess(k);
        return k;
    }

    /**
     * Runs this command as a job of {@code nodes} ranks ({@code nodes / K} processes of K
     * ranks each) and says how it ended.
     *
     * @throws BackendException naming what the user gave (an mpirun option, the hostfile, the launcher)
     *     and the launcher's reason, if the launcher failed before starting any rank: no restart helps
     */
    JobOutcome launch(int nodes, List<String> args) {
        int k = ranksPerProcess(nodes);
        JobLaunch launch = launchSpec(nodes / k);
        launch = new JobLaunch(launch.processes(), launch.hostfile(), launch.mpirunArgs(), launch.jvmArgs(),
            launch.commTimeout(), k);
        List<String> rankArgs = "auto".equals(ranksPerProcess)
            ? Attempts.withOption(args, "--ranks-per-process", Integer.toString(k)) : args;
        JobOutcome end = Backend.runMpiJob(launch, Main.class.getName(), rankArgs);
        if (end.kind() == JobOutcome.Kind.LAUNCH_FAILED) {
            String given = launchCulprit(end.message());
            throw new BackendException((given == null ? "" : given + ": ") + end.message());
        }
        return end;
    }

    /**
     * What the user gave that a launcher's failure is about: an {@code --mpirun-args} word its
     * reason repeats, else the hostfile when the reason speaks of a host or repeats a word of the
     * file, else {@code PARATRAIN_MPIRUN}; then whichever of these was given; null if none was.
     */
    String launchCulprit(String reason) {
        String text = reason.toLowerCase(java.util.Locale.ROOT);
        String args = mpirunArgs == null || mpirunArgs.isBlank() ? null : "--mpirun-args '" + mpirunArgs.strip() + "'";
        String hosts = hostfile == null ? null : "--hostfile " + hostfile;
        String env = System.getenv("PARATRAIN_MPIRUN");
        String launcher = env == null || env.isBlank() ? null : "PARATRAIN_MPIRUN=" + env.strip();
        if (args != null && mentions(text, mpirunArgs.strip().split("\\s+"))) {
            return args;
        }
        if (hosts != null && (text.contains("host") || mentions(text, hostfileWords()))) {
            return hosts;
        }
        return launcher != null ? launcher : args != null ? args : hosts;
    }

    /** Whether {@code text} holds one of {@code words} (of three letters or more, leading dashes aside). */
    private static boolean mentions(String text, String[] words) {
        for (String w : words) {
            String bare = w.replaceFirst("^-+", "").toLowerCase(java.util.Locale.ROOT);
            if (bare.length() >= 3 && text.contains(bare)) {
                return true;
            }
        }
        return false;
    }

    /** The words of the hostfile (host names, {@code slots}, ...), none if it cannot be read. */
    private String[] hostfileWords() {
        try {
            return java.nio.file.Files.readString(hostfile).split("[\\s=:]+");
        } catch (java.io.IOException | java.io.UncheckedIOException e) {
            return new String[0];
        }
    }
}
