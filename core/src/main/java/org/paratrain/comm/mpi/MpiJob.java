package org.paratrain.comm.mpi;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.paratrain.comm.BackendException;
import org.paratrain.comm.JobLaunch;
import org.paratrain.comm.JobOutcome;
import org.paratrain.io.ExitCleanup;

/**
 * Starting paratrain as an MPI job: the {@code mpirun} command line for this machine and
 * this MPI, and whether the current process was itself started by {@code mpirun}.
 *
 * <p>As root Open MPI refuses to run without {@code --allow-run-as-root}; with more
 * processes than cores it needs {@code --oversubscribe}, and binding every process to a
 * core would then stack several on one, so processes are bound to cores only when each
 * can have its own and holds one rank (a process whose ranks are threads spreads them over the
 * cores itself). Every rank is a JVM: it gets a share of the memory as its heap
 * ({@code -Xmx}), no perf-data file, and the serial collector (one GC thread, not one per
 * core, when 32 JVMs share 2 cores).
 */
public final class MpiJob {
    private MpiJob() { }

    /** {@return true when this process is a rank of an MPI job (started by mpirun or mpiexec)} */
    public static boolean insideMpirun() {
        Map<String, String> env = System.getenv();
        return env.containsKey("OMPI_COMM_WORLD_SIZE") || env.containsKey("PMI_SIZE")
            || env.containsKey("PMIX_RANK") || env.containsKey("MPI_LOCALNRANKS");
    }

    /** {@return this process's rank from the launcher's environment, or 0 outside an MPI job} */
    public static int rankFromEnvironment() {
        for (String key : List.of("OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK")) {
            String v = System.getenv(key);
            if (v != null) {
                try {
                    return Integer.parseInt(v.strip());
                } catch (NumberFormatException e) {
                    return 0;
                }
            }
        }
        return 0;
    }

    /**
     * Runs {@code mainClass args} on every rank under mpirun, with this JVM's class path. A rank
     * that dies without saying why is named in one line; a SIGINT or SIGTERM to this process
     * ends mpirun and every rank (see {@link JobSupervisor}).
     *
     * @param launch    how many ranks, where, with which options
     * @param mainClass the program every rank runs
     * @param args      its arguments
     * @return how the job ended: mpirun's exit status, and the rank that died or the launcher's reason
     */
    public static JobOutcome run(JobLaunch launch, String mainClass, List<String> args) {
        return JobSupervisor.run(command(launch, mainClass, args), launch.ranksPerProcess());
    }

    /**
     * {@return the full command line: mpirun, its options, the JVM and its options, the program}
     * @param launch    how many ranks, where, with which options
     * @param mainClass the program every rank runs
     * @param args      its arguments
     */
    public static List<String> command(JobLaunch launch, String mainClass, List<String> args) {
        List<String> cmd = new ArrayList<>(mpirunPrefix(launch));
        cmd.addAll(javaCommand());
        cmd.addAll(rankJvmOptions(launch.processes()));
        cmd.addAll(threadOptions(launch));
        Path cache = startupCache();
        if (cache != null && Files.isRegularFile(cache) && sameModules(launch.jvmArgs())) {
            // Its messages off: a cache a rank cannot use costs start-up time, never lines of output.
            cmd.addAll(List.of("-XX:AOTCache=" + cache, "-Xlog:aot=off", "-Xlog:cds=off"));
        }
        cmd.addAll(launch.jvmArgs());
        cmd.addAll(List.of("-cp", absoluteClassPath(), mainClass));
        cmd.addAll(args);
        return cmd;
    }

    /**
     * Whether the ranks' own options leave the start-up cache usable: a JVM whose module options
     * differ from the cache's (such as {@code --add-modules jdk.incubator.vector}, for the Vector
     * API's kernels) refuses it, and one given another cache or class-sharing option stops at
     * start when given the cache as well.
     */
    static boolean sameModules(List<String> jvmArgs) {
        List<String> all = new ArrayList<>(jvmArgs);
        // The JVM reads these variables too, so the ranks' JVMs would see what they hold.
        for (String variable : List.of("JDK_JAVA_OPTIONS", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS")) {
            String env = System.getenv(variable);
            if (env != null && !env.isBlank()) {
                all.addAll(List.of(env.strip().split("\\s+")));
            }
        }
        for (String a : all) {
            // An argument file may hold options that cannot be seen from here.
            if (a.equals("-p") || a.startsWith("@")) {
                return false;
            }
            for (String o : List.of("--add-modules", "--limit-modules", "--patch-module", "--module-path",
                "--upgrade-module-path", "--add-opens", "--add-exports", "--add-reads", "-Djdk.module.", "-Xshare",
                "-XX:AOT", "-XX:SharedArchiveFile", "-XX:+AutoCreateSharedArchive", "-XX:SharedClassListFile",
                "-XX:DumpLoadedClassList", "-XX:Flags=", "-XX:VMOptionsFile")) {
                if (a.startsWith(o)) {
                    return false;
                }
            }
        }
        return true;
    }

    /**
     * The JVM, started through {@code env}: Open MPI's mpirun rewrites the command line of a
     * program named {@code java} (it appends its own library directory to the class path),
     * which among other things makes the ahead-of-time cache refuse the class path. {@code env}
     * also names this process to every rank, as the launcher whose death ends the job (see
     * {@link LauncherWatch}): in the command line, not mpirun's environment, since Open MPI passes
     * only its own variables to other hosts.
     */
    private static List<String> javaCommand() {
        List<String> cmd = new ArrayList<>(List.of("env"));
        String self = LauncherWatch.describeSelf();
        if (self != null) {
            cmd.add(LauncherWatch.ENV + "=" + self);
        }
        cmd.add(ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin",
            "java").toString()));
        return cmd;
    }

    private static String absoluteClassPath() {
        List<String> parts = new ArrayList<>();
        for (String p : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            parts.add(Path.of(p).toAbsolutePath().toString());
        }
        return String.join(java.io.File.pathSeparator, parts);
    }

    /**
     * For processes of one rank on this machine: {@code MPI_THREAD_SINGLE} (see
     * {@link MpiCommunicator}'s constructor). For processes of several ranks on this machine: as many carrier threads for the ranks'
     * virtual threads as the process has cores ({@code cores / processes}). The JVM's default, one
     * per core of the machine, made the processes' carriers outnumber the cores, and a step of
     * the paper's model at 32 ranks as 2 processes of 16 took 90 instead of 66 us.
     */
    private static List<String> threadOptions(JobLaunch launch) {
        if (launch.ranksPerProcess() == 1 && launch.hostfile() == null) {
            // One thread calls MPI: MPI_THREAD_SINGLE spares Open MPI's locks (see MpiCommunicator).
            // Not across hosts: a network transport's registration cache is told of memory the JVM's
            // other threads unmap, and without the locks that could race with the rank's calls.
            return List.of("-D" + MpiCommunicator.THREADS_PROPERTY + "=single");
        }
        if (launch.hostfile() != null) {
            return List.of();
        }
        int cores = Runtime.getRuntime().availableProcessors();
        return List.of("-Djdk.virtualThreadScheduler.parallelism=" + Math.max(1, cores / launch.processes()));
    }

    /** The launcher's on-stack compile threshold (see the script and {@link #rankJvmOptions}). */
    static final String JIT_OPTION = "-XX:Tier4BackEdgeThreshold=400000";

    /**
     * The ranks' JVM options. The on-stack compile threshold is the launcher's (see the script):
     * a kernel called once per block otherwise reaches the default within its first calls and
     * C2 compiles it twice while the ranks need the cores; a 2-rank MPI run's first training of
     * 20,000 x 10 over 3,000 epochs took 0.65 against 0.69 s (medians of 5, alternated).
     */
    private static List<String> rankJvmOptions(int processes) {
        return List.of("--enable-native-access=ALL-UNNAMED", "-XX:-UsePerfData", "-XX:+UseSerialGC",
            JIT_OPTION, "-Xmx" + heapPerRankMb(processes) + "m");
    }

    /**
     * Where the ranks' ahead-of-time cache lives: beside paratrain's jar, when paratrain runs
     * from a jar (not from a build tree). Null otherwise.
     */
    static Path startupCache() {
        String cp = System.getProperty("java.class.path");
        if (cp == null || cp.contains(java.io.File.pathSeparator) || !cp.endsWith(".jar")) {
            return null;
        }
        Path jar = Path.of(cp).toAbsolutePath();
        return jar.resolveSibling(jar.getFileName().toString().replaceFirst("\\.jar$", "") + "-mpi.aot");
    }

    /**
     * Makes the ranks' start-up cache if it is missing or older than the jar: one MPI process
     * runs {@code mainClass trainingArgs} with {@code -XX:AOTCacheOutput}, and every later rank
     * maps the classes it loaded and linked instead of loading them again (measured: the time
     * from JVM start to the end of MPI_Init on the slowest rank falls from 14.7 to 10.8 s at 32
     * processes on 2 cores, from 0.96 to 0.80 s at 2). Failing to make it only costs that time.
     *
     * @param mainClass    the program the ranks will run (paratrain's command line)
     * @param trainingArgs its arguments for a short run that loads the classes a real one uses
     */
    public static void prepareStartupCache(String mainClass, List<String> trainingArgs) {
        Path cache = startupCache();
        if (cache == null) {
            return;
        }
        try {
            Path jar = Path.of(System.getProperty("java.class.path")).toAbsolutePath();
            if (Files.isRegularFile(cache)
                && !Files.getLastModifiedTime(cache).toInstant().isBefore(Files.getLastModifiedTime(jar).toInstant())) {
                return;
            }
            System.err.println("paratrain: preparing a start-up cache for MPI ranks (once per build)...");
            List<String> cmd = new ArrayList<>(mpirunPrefix(new JobLaunch(1, null, List.of(), List.of())));
            cmd.addAll(javaCommand());
            cmd.addAll(rankJvmOptions(1));
            cmd.addAll(List.of("-XX:AOTCacheOutput=" + cache, "-Xlog:aot=off", "-cp", jar.toString(), mainClass));
            cmd.addAll(trainingArgs);
            Process p = ParentDeathSignal.start(new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD));
            // A cancel meanwhile ends this job too, and leaves no half-written cache behind.
            Runnable unregister = ExitCleanup.stopOnExit(p);
            ExitCleanup.deleteOnExit(cache);
            int status = p.waitFor();
            unregister.run();
            if (status != 0) {
                Files.deleteIfExists(cache);
            }
            ExitCleanup.forget(cache);
        } catch (IOException e) {
            // No cache: ranks start a little slower, nothing else changes.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * {@return mpirun and its options, without the program to run}
     * @param launch how many ranks, where, with which options
     */
    public static List<String> mpirunPrefix(JobLaunch launch) {
        String mpirun = findMpirun();
        List<String> cmd = new ArrayList<>();
        cmd.add(mpirun);
        boolean openMpi = isOpenMpi(mpirun);
        int cores = Runtime.getRuntime().availableProcessors();
        if (openMpi) {
            cmd.addAll(List.of("-np", Integer.toString(launch.processes())));
            if ("root".equals(System.getProperty("user.name"))) {
                cmd.add("--allow-run-as-root");
            }
            cmd.add("--oversubscribe");
            cmd.addAll(List.of("--bind-to", bindToCore(launch, cores) ? "core" : "none"));
            if (launch.hostfile() != null) {
                cmd.addAll(List.of("--hostfile", launch.hostfile().toString()));
            }
        } else {
            cmd.addAll(List.of("-n", Integer.toString(launch.processes())));
            if (launch.hostfile() != null) {
                cmd.addAll(List.of("-f", launch.hostfile().toString()));
            }
        }
        cmd.addAll(launch.mpirunArgs());
        return cmd;
    }

    /**
     * Whether each process gets a core of its own: when every process can have one, on this
     * machine, and its ranks fit one core (one rank, or as many processes as cores, whose
     * ranks are then virtual threads on one carrier).
     */
    private static boolean bindToCore(JobLaunch launch, int cores) {
        return launch.processes() <= cores && launch.hostfile() == null
            && (launch.ranksPerProcess() == 1 || cores / launch.processes() == 1);
    }

    /** Half the machine's memory shared among the ranks, between 256 MB and 8 GB each. */
    static long heapPerRankMb(int processes) {
        long total = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
            .getTotalMemorySize() / (1024 * 1024);
        return Math.max(256, Math.min(8192, total / 2 / processes));
    }

    /** {@code PARATRAIN_MPIRUN} if set (a name on the PATH or a path, e.g. mpiexec.mpich), else mpirun or mpiexec. */
    private static String findMpirun() {
        String named = System.getenv("PARATRAIN_MPIRUN");
        boolean given = named != null && !named.isBlank();
        for (String name : given ? List.of(named.strip()) : List.of("mpirun", "mpiexec")) {
            if (name.contains("/")) {
                if (Files.isExecutable(Path.of(name))) {
                    return name;
                }
                continue;
            }
            java.util.Optional<Path> found = org.paratrain.io.Executables.find(name);
            if (found.isPresent()) {
                return found.get().toString();
            }
        }
        if (given) {
            throw new BackendException("PARATRAIN_MPIRUN names " + named.strip() + ", which is not an executable "
                + (named.contains("/") ? "file" : "on the PATH"));
        }
        throw new BackendException("no mpirun on the PATH; install Open MPI (apt-get install openmpi-bin "
            + "libopenmpi-dev) or MPICH");
    }

    private static boolean isOpenMpi(String mpirun) {
        try {
            Process p = new ProcessBuilder(mpirun, "--version").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes());
            p.waitFor();
            return out.contains("Open MPI") || out.contains("OpenRTE");
        } catch (IOException e) {
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true;
        }
    }
}
