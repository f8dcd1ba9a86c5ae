package org.paratrain.comm.mpi;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.paratrain.comm.BackendException;
import org.paratrain.comm.JobOutcome;
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
 *   <li>Launch failures: until a rank runs, the launcher's lines are held; when it ends before
 *       (an option it does not know, a host it cannot reach, a launcher that is no launcher),
 *       they are dropped and its first line of reason goes to the caller in the
 *       {@link JobOutcome}, to be told in one line that names what the user gave.</li>
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
    /** How long the launcher's lines are held when no rank of this machine shows it has started. */
    static final long HOLD_MILLIS = 10_000;

    private JobSupervisor() { }

    /**
     * Runs {@code command} (mpirun and its arguments) and says how the job ended: status 0, 1 for
     * a failed job (2 when the ranks refused an option), the JVM's status for a cancel (130, 143),
     * or the launcher's own for a launcher that failed before any rank ran.
     *
     * @param ranksPerProcess ranks each process holds, for naming the ranks of a process that died
     */
    static JobOutcome run(List<String> command, int ranksPerProcess) {
        Path records = AtomicFiles.stagingDirectory(Path.of(System.getProperty("java.io.tmpdir"), "paratrain-job"));
        LauncherOutput out = new LauncherOutput(System.out, true);
        LauncherOutput err = new LauncherOutput(System.err, true);
        Process p = start(command, records);
        DeathOrder deaths = DeathOrder.watch(records);
        String launcher = Path.of(command.get(0)).getFileName().toString();
        Runnable unregister = ExitCleanup.onExit(() -> cancel(p, launcher, out, err));
        Thread outReader = Thread.ofPlatform().daemon().name("paratrain-mpirun-stdout")
            .start(() -> out.copy(p.getInputStream()));
        Thread errReader = Thread.ofPlatform().daemon().name("paratrain-mpirun-stderr")
            .start(() -> err.copy(p.getErrorStream()));
        try {
            int status = await(p, records, out, err);
            deaths.close();     // every death it could see has happened
            outReader.join(GRACE_MILLIS);
            errReader.join(GRACE_MILLIS);
            unregister.run();
            return outcome(status, launcher, out, err, new Job(records, ranksPerProcess, deaths));
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

    /** What the end of a job is read from: the ranks' records, their layout, the order their processes died in. */
    private record Job(Path records, int ranksPerProcess, DeathOrder deaths) { }

    /**
     * Waits for mpirun to end. Meanwhile: lets its output pass once a rank runs (a record exists)
     * or {@value #HOLD_MILLIS} ms have passed (ranks on other machines leave no record here); and
     * ends it when, before any rank ran, it said a host cannot be reached, since MPICH's hydra then
     * waits forever for the process it could not start.
     */
    private static int await(Process p, Path records, LauncherOutput out, LauncherOutput err)
        throws InterruptedException {
        long t0 = System.nanoTime();
        long fatalAt = 0;
        while (!p.waitFor(100, TimeUnit.MILLISECONDS)) {
            long now = System.nanoTime();
            if (out.holding() && (anyRecord(records) || now - t0 > HOLD_MILLIS * 1_000_000)) {
                out.start();
                err.start();
            }
            if (fatalAt == 0 && err.holding() && (err.fatal() || out.fatal())) {
                fatalAt = now;
            } else if (fatalAt != 0 && now - fatalAt > GRACE_MILLIS * 1_000_000 && !ExitCleanup.exiting()) {
                stop(p);    // Open MPI's mpirun has ended by itself by now; hydra never does
            }
        }
        return p.exitValue();
    }

    /** How the job ended, from its status and what the launcher and the ranks said; prints the line for a death. */
    private static JobOutcome outcome(int status, String launcher, LauncherOutput out, LauncherOutput err, Job job) {
        if (status == 0) {
            out.start();
            err.start();
            out.endNoise(true);
            err.endNoise(true);
            return JobOutcome.of(0, JobOutcome.Kind.SUCCEEDED, null);
        }
        out.endNoise(false);
        err.endNoise(false);
        if (ExitCleanup.exiting()) {
            return JobOutcome.of(status, JobOutcome.Kind.CANCELLED, null);
        }
        List<RankEnd> ends = new ArrayList<>(err.ends());
        ends.addAll(out.ends());
        if (!out.explained() && !err.explained() && ends.isEmpty() && !anyRecord(job.records())) {
            out.dropHeld();
            err.dropHeld();
            String reason = err.reason() != null ? err.reason() : out.reason();
            return JobOutcome.of(status, JobOutcome.Kind.LAUNCH_FAILED, reason == null
                ? launcher + " ended with status " + status + " before starting any rank, without saying why"
                : launcher + " could not start the job: " + reason);
        }
        out.start();
        err.start();
        if (out.explained() || err.explained()) {
            // 2: the ranks refused an option; the rank that failed said why
            return explained(status == 2 ? 2 : 1, err.explanation() != null ? err.explanation() : out.explanation());
        }
        JobOutcome crash = crash(status, ends, job.records(), job.ranksPerProcess(), job.deaths());
        System.err.println(crash.message());
        return crash;
    }

    /** A job a rank ended with its own line: the rank and epoch, where that line names them. */
    private static JobOutcome explained(int status, String line) {
        Matcher rank = Pattern.compile("^paratrain: ranks? (\\d+)").matcher(line);
        Matcher epoch = Pattern.compile("\\bepoch (\\d+)").matcher(line);
        return new JobOutcome(status, JobOutcome.Kind.RANK_FAILED, rank.find() ? Integer.parseInt(rank.group(1)) : -1,
            null, 0, null, -1, epoch.find() ? Long.parseLong(epoch.group(1)) : 0, line);
    }

    /** Whether any rank of this machine has made its record: a rank has started. */
    private static boolean anyRecord(Path records) {
        try (Stream<Path> files = Files.list(records)) {
            return files.anyMatch(f -> f.getFileName().toString().startsWith("rank-"));
        } catch (IOException e) {
            return false;
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

    /** As {@link #crash}, the line only. */
    static String crashLine(int status, List<RankEnd> ends, Path records, int ranksPerProcess, DeathOrder deaths) {
        return crash(status, ends, records, ranksPerProcess, deaths).message();
    }

    /**
     * The end of a job that ended with {@code status} without a rank saying why, and its line;
     * {@code deaths} says which rank process of this machine ended first, where the launcher's
     * report may not.
     */
    static JobOutcome crash(int status, List<RankEnd> ends, Path records, int ranksPerProcess, DeathOrder deaths) {
        if (ends.isEmpty()) {
            return JobOutcome.of(1, JobOutcome.Kind.RANK_DIED,
                "paratrain: the MPI job ended with status " + status + " and no rank said why");
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
        RankEnd named = end.with(rank, s == null ? 0 : s.pid());
        long epoch = s == null ? 0 : s.epoch();
        return new JobOutcome(1, JobOutcome.Kind.RANK_DIED, named.rank() < 0 ? -1 : named.rank() * ranksPerProcess,
            named.host(), named.pid(), named.signal() > 0 ? RankEnd.signalName(named.signal()) : null, named.status(),
            epoch, named.message(epoch, ranksPerProcess));
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
        int ended = stop(p);
        System.err.println("paratrain: cancelled; ended " + launcher + " and its " + ended + " processes");
    }

    /** Ends mpirun and every process below it, as {@link #cancel} does; returns how many processes were below it. */
    private static int stop(Process p) {
        Set<ProcessHandle> tree = new LinkedHashSet<>(p.descendants().toList());
        p.destroy();
        if (!waitFor(p, tree, GRACE_MILLIS)) {
            tree.addAll(p.descendants().toList());
            p.destroyForcibly();
            tree.forEach(ProcessHandle::destroyForcibly);
            waitFor(p, tree, 1_000);
        }
        return tree.size();
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
