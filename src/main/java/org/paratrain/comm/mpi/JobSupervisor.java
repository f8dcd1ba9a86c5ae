package org.paratrain.comm.mpi;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.paratrain.comm.BackendException;
import org.paratrain.io.AtomicFiles;
import org.paratrain.io.ExitCleanup;

/**
 * Runs mpirun for the launching process and stays responsible for the job until it ends.
 *
 * <ul>
 *   <li>Crashes: mpirun's standard output and error go through {@link LauncherOutput} (Open
 *       MPI reports a rank's end on standard error, MPICH's hydra on standard output); when a rank
 *       died without saying why, one line names it, its host and PID, the signal or exit
 *       status, and the epoch from its progress record ({@link RankRecord}, in a per-job
 *       directory named in the ranks' environment and deleted afterwards).</li>
 *   <li>Cancels: while mpirun runs, a SIGINT or SIGTERM to this process (see
 *       {@link ExitCleanup}) forwards SIGTERM to mpirun, which ends its ranks; whatever still
 *       runs after {@value #GRACE_MILLIS} ms, mpirun and every process below it, is killed.
 *       The process tree is taken before mpirun is signalled: once it dies, its children
 *       belong to init and are no longer found below it.</li>
 *   <li>Deaths: when this process dies, even by kill -9, mpirun gets SIGKILL from the kernel
 *       ({@link ParentDeathSignal}) and every rank ends itself at once ({@link LauncherWatch}),
 *       publishing nothing: a job never outlives the process that waits for its results.</li>
 * </ul>
 */
final class JobSupervisor {
    static final long GRACE_MILLIS = 3_000;

    private JobSupervisor() { }

    /**
     * Runs {@code command} (mpirun and its arguments); returns 0, 1 for a failed job (2 when the
     * ranks refused an option), or the JVM's status for a cancel (130, 143).
     *
     * @param ranksPerProcess ranks each process holds, for naming the ranks of a process that died
     */
    static int run(List<String> command, int ranksPerProcess) {
        Path records = AtomicFiles.stagingDirectory(Path.of(System.getProperty("java.io.tmpdir"), "paratrain-job"));
        LauncherOutput out = new LauncherOutput(System.out);
        LauncherOutput err = new LauncherOutput(System.err);
        Process p = start(command, records);
        DeathOrder deaths = DeathOrder.watch(records);
        String launcher = Path.of(command.get(0)).getFileName().toString();
        Runnable unregister = ExitCleanup.onExit(() -> cancel(p, launcher, out, err));
        Thread outReader = Thread.ofPlatform().daemon().name("paratrain-mpirun-stdout")
            .start(() -> out.copy(p.getInputStream()));
        Thread errReader = Thread.ofPlatform().daemon().name("paratrain-mpirun-stderr")
            .start(() -> err.copy(p.getErrorStream()));
        try {
            int status = p.waitFor();
            deaths.close();     // every death it could see has happened
            outReader.join(GRACE_MILLIS);
            errReader.join(GRACE_MILLIS);
            unregister.run();
            if (status == 0 || ExitCleanup.exiting()) {
                return status;
            }
            if (out.explained() || err.explained()) {
                return status == 2 ? 2 : 1;   // 2: the ranks refused an option; the rank that failed said why
            }
            List<RankEnd> ends = new ArrayList<>(err.ends());
            ends.addAll(out.ends());
            System.err.println(crashLine(status, ends, records, ranksPerProcess, deaths));
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BackendException("interrupted while waiting for mpirun");
        } finally {
            deaths.close();
            if (!ExitCleanup.exiting()) {
                AtomicFiles.deleteQuietly(records);
            }
        }
    }

    /** Starts mpirun with its output to be read, telling the ranks where their progress records go. */
    private static Process start(List<String> command, Path records) {
        try {
            ProcessBuilder pb = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.INHERIT);
            pb.environment().put(RankRecord.DIR_ENV, records.toString());
            return ParentDeathSignal.start(pb);
        } catch (IOException e) {
            AtomicFiles.deleteQuietly(records);
            throw new BackendException("cannot start " + command.get(0) + ": " + e.getMessage());
        }
    }

    /**
     * The line for a job that ended with {@code status} without a rank saying why; {@code deaths}
     * says which rank process of this machine ended first, where the launcher's report may not.
     */
    static String crashLine(int status, List<RankEnd> ends, Path records, int ranksPerProcess, DeathOrder deaths) {
        if (ends.isEmpty()) {
            return "paratrain: the MPI job ended with status " + status + " and no rank said why";
        }
        RankEnd end = ends.getFirst();
        long first = deaths.first();
        if (end.rank() < 0 && deaths.watched(end.pid()) && first > 0 && first != end.pid()) {
            // Hydra named a process of this machine that its own clean-up killed (see DeathOrder); the
            // one that ended first set that off. Its signal is not known: hydra's is the clean-up's SIGKILL.
            end = new RankEnd(-1, first, end.host(), 0, -1);
        }
        List<RankRecord.Snapshot> all = readAll(records);
        int rank = end.rank();
        if (rank < 0) {
            for (int r = 0; r < all.size(); r++) {
                if (all.get(r) != null && all.get(r).pid() == end.pid()) {
                    rank = r;
                }
            }
        }
        RankRecord.Snapshot s = rank >= 0 && rank < all.size() ? all.get(rank) : null;
        return end.with(rank, s == null ? 0 : s.pid()).message(s == null ? 0 : s.epoch(), ranksPerProcess);
    }

    /** Every rank's record in {@code dir}, by rank, with nulls for those missing. */
    private static List<RankRecord.Snapshot> readAll(Path dir) {
        List<RankRecord.Snapshot> all = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            int n = (int) files.filter(f -> f.getFileName().toString().startsWith("rank-")).count();
            for (int r = 0; r < n; r++) {
                all.add(RankRecord.read(dir, r));
            }
        } catch (IOException e) {
            // No records: the line says what the launcher said.
        }
        return all;
    }

    /** Ends mpirun and every process below it: SIGTERM first, SIGKILL for what still runs after the grace time. */
    private static void cancel(Process p, String launcher, LauncherOutput out, LauncherOutput err) {
        out.silence();
        err.silence();
        Set<ProcessHandle> tree = new LinkedHashSet<>(p.descendants().toList());
        p.destroy();
        if (!waitFor(p, tree, GRACE_MILLIS)) {
            tree.addAll(p.descendants().toList());
            p.destroyForcibly();
            tree.forEach(ProcessHandle::destroyForcibly);
            waitFor(p, tree, 1_000);
        }
        System.err.println("paratrain: cancelled; ended " + launcher + " and its " + tree.size() + " processes");
    }

    /**
     * True if {@code h} runs: alive and not a zombie. A rank whose parent died first is a zombie
     * until init reaps it, which {@link ProcessHandle#isAlive} counts as alive.
     */
    static boolean running(ProcessHandle h) {
        if (!h.isAlive()) {
            return false;
        }
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(h.pid()), "stat"));
            int close = stat.lastIndexOf(')');
            return close < 0 || close + 2 >= stat.length() || stat.charAt(close + 2) != 'Z';
        } catch (IOException e) {
            return h.isAlive();   // no /proc (not Linux), or it just ended
        }
    }

    /** Waits until {@code p} and every process of {@code tree} have ended, at most {@code millis}; true if they have. */
    private static boolean waitFor(Process p, Set<ProcessHandle> tree, long millis) {
        long end = System.nanoTime() + millis * 1_000_000;
        while (p.isAlive() || tree.stream().anyMatch(JobSupervisor::running)) {
            if (System.nanoTime() > end) {
                return false;
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                return false;
            }
        }
        return true;
    }
}
