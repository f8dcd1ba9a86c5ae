package org.paratrain.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.paratrain.comm.JobFailedException;
import org.paratrain.comm.JobOutcome;
import org.paratrain.comm.RankFailedException;
import org.paratrain.experiment.RunWriter;
import org.paratrain.train.DivergenceException;
import org.paratrain.train.TrainingControl;
import org.paratrain.train.TrainingResult;
import org.paratrain.train.TrainingState;
import org.paratrain.train.checkpoint.CheckpointStore;
import org.paratrain.train.checkpoint.CheckpointWriter;

/**
 * Runs a training job until it succeeds or runs out of restarts. After a rank fails (it
 * threw, died or hung), the job starts again from the newest checkpoint; when failures
 * repeat, on one rank fewer each time down to the minimum. Results do not depend on the
 * node count, so a restarted run ends with the bits of one that never failed. Divergence is
 * not a failure to retry: the same settings would diverge again.
 *
 * <p>Also keeps the history of the latest attempt, so that a run that fails for good still
 * leaves the losses that show what went wrong.
 */
final class Attempts {
    private final CheckpointOptions options;
    private final JsonNode meta;
    private final PrintWriter err;
    private final ArrayNode log = RunWriter.json().createArrayNode();
    private TrainingResult.History history;
    private int epochsDone;

    Attempts(CheckpointOptions options, JsonNode meta, PrintWriter err) {
        this.options = options;
        this.meta = meta;
        this.err = err;
    }

    /** One attempt: trains on {@code nodes} ranks under {@code control}. */
    @FunctionalInterface
    interface Attempt {
        TrainingResult run(int nodes, TrainingControl control, boolean firstAttempt);
    }

    /** Runs in this process (the local backend): attempts until one succeeds or restarts run out. */
    TrainingResult runLocal(int nodes, TrainingState resumed, TrainingControl.EpochListener listener,
                            Attempt attempt) {
        TrainingState state = resumed;
        int n = nodes;
        for (int restart = 0; ; restart++) {
            CheckpointWriter writer = options.writer(meta, f -> { });
            try {
                TrainingResult r = attempt.run(n, options.control(state, writer, listener), restart == 0);
                if (writer != null) {
                    writer.close();     // the last checkpoint is on disk before the run reports success
                }
                return r;
            } catch (RankFailedException e) {
                if (writer != null) {
                    writer.close();
                }
                if (e.getCause() instanceof DivergenceException || restart >= options.maxRestarts) {
                    throw e;
                }
                state = newestState();
                n = restart == 0 ? n : Math.max(options.minNodes(nodes), n - 1);
                restartEntry(restart + 1, e.getMessage(), state, n);
                err.println("paratrain: " + e.getMessage() + "; " + restarting(restart + 1, state, n));
                err.flush();
            }
        }
    }

    /**
     * Runs an MPI job (the front process): {@code launch} starts mpirun with the arguments for
     * the given node count and state, and says how the job ended (its line already printed).
     */
    void runMpi(int nodes, Function<Restart, JobOutcome> launch) {
        int n = nodes;
        Restart how = new Restart(n, options.resume, true);
        for (int restart = 0; ; restart++) {
            JobOutcome end = launch.apply(how);
            if (end.succeeded()) {
                return;
            }
            if (restart >= options.maxRestarts || end.status() == 2 || end.kind() == JobOutcome.Kind.CANCELLED) {
                throw new JobFailedException(end.status());
            }
            TrainingState state = newestState();
            n = restart == 0 ? n : Math.max(options.minNodes(nodes), n - 1);
            logRestart(restart + 1, end, state, n);
            how = new Restart(n, state == null ? null : options.dir, false);
        }
    }

    /**
     * How to launch an attempt.
     *
     * @param nodes  ranks
     * @param resume checkpoint to resume from, or null to start afresh
     * @param first  whether this is the first attempt (not a restart)
     */
    record Restart(int nodes, Path resume, boolean first) { }

    /** The restarts so far, for result.json: attempt, reason, where it resumed, on how many ranks. */
    ArrayNode log() {
        return log;
    }

    /**
     * Writes the history of the epochs completed before a failure into {@code OUT.failed}, beside
     * {@code out} (which stays as it was), and says where; does nothing when no epoch completed.
     */
    void writePartialHistory(Path out) {
        if (out == null || history == null || epochsDone == 0) {
            return;
        }
        Path failed = TrainReport.failedDirectory(out);
        try {
            Path f = RunWriter.writePartialHistory(failed, history, epochsDone);
            err.println("paratrain: wrote the loss history of the " + epochsDone + " epochs before the failure to " + f
                + " (" + out + " is as it was)");
        } catch (java.io.UncheckedIOException e) {
            err.println("paratrain: warning: " + e.getMessage());   // the run's own failure is the one to report
        }
    }

    /** The listener that keeps the latest history, for {@link #writePartialHistory}. */
    TrainingControl.EpochListener listener() {
        return this::epochEnd;
    }

    private void epochEnd(int epoch, TrainingResult.History h) {
        history = h;
        epochsDone = epoch;
    }

    /** The newest intact checkpoint's state, or null (a restart from the beginning) when there is none. */
    private TrainingState newestState() {
        if (options.dir == null || !Files.isDirectory(options.dir)) {
            return null;
        }
        try {
            return CheckpointStore.newest(options.dir, w -> err.println("paratrain: warning: " + w)).state();
        } catch (java.io.UncheckedIOException e) {
            return null;
        }
    }

    /** A restart's entry for result.json: the failure's one line as the reason, where it resumed, on how many ranks. */
    private ObjectNode restartEntry(int attempt, String reason, TrainingState state, int nodes) {
        ObjectNode r = log.addObject();
        r.put("restart", attempt);
        r.put("reason", reason);
        r.put("resumed_from", state == null ? "the beginning" : state.toString());
        r.put("nodes", nodes);
        return r;
    }

    /**
     * Records a restart of an MPI job: the line of its failure (already printed) as the reason, and
     * the rank, host, pid, signal or exit status and epoch it names (null where not known).
     */
    private void logRestart(int attempt, JobOutcome end, TrainingState state, int nodes) {
        String line = end.message() == null ? "the MPI job ended with status " + end.status() : end.message();
        ObjectNode r = restartEntry(attempt, line.replaceFirst("^paratrain: ", ""), state, nodes);
        putKnown(r, "rank", end.rank() >= 0, end.rank());
        if (end.host() == null) {
            r.putNull("host");
        } else {
            r.put("host", end.host());
        }
        putKnown(r, "pid", end.pid() > 0, end.pid());
        if (end.signal() == null) {
            r.putNull("signal");
        } else {
            r.put("signal", end.signal());
        }
        putKnown(r, "exit_status", end.exitStatus() >= 0, end.exitStatus());
        putKnown(r, "epoch", end.epoch() > 0, end.epoch());
        r.put("job_status", end.status());
        err.println("paratrain: " + restarting(attempt, state, nodes));
        err.flush();
    }

    private static void putKnown(ObjectNode r, String field, boolean known, long value) {
        if (known) {
            r.put(field, value);
        } else {
            r.putNull(field);
        }
    }

    /** The words of a restart: from where, on how many ranks, which of how many. */
    private String restarting(int attempt, TrainingState state, int nodes) {
        return "restarting from " + (state == null ? "the beginning" : state) + " on " + nodes
            + (nodes == 1 ? " node" : " nodes") + " (restart " + attempt + " of " + options.maxRestarts + ")";
    }

    /** The arguments of a command line with {@code option}'s value set to {@code value} (added if missing). */
    static List<String> withOption(List<String> args, String option, String value) {
        List<String> out = new ArrayList<>();
        boolean set = false;
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (a.equals(option) && i + 1 < args.size()) {
                out.add(a);
                out.add(value);
                i++;
                set = true;
            } else if (a.startsWith(option + "=")) {
                out.add(option + "=" + value);
                set = true;
            } else {
                out.add(a);
            }
        }
        if (!set) {
            out.add(option);
            out.add(value);
        }
        return out;
    }

    /** The arguments without {@code option} and its value. */
    static List<String> withoutOption(List<String> args, String option) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < args.size(); i++) {
            if (args.get(i).equals(option)) {
                i++;
            } else if (!args.get(i).startsWith(option + "=")) {
                out.add(args.get(i));
            }
        }
        return out;
    }
}
