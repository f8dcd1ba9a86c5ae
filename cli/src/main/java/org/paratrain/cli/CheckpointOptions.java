package org.paratrain.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.time.Duration;
import org.paratrain.experiment.CheckpointRecords;
import org.paratrain.train.TrainingControl;
import org.paratrain.train.TrainingResult;
import org.paratrain.train.TrainingState;
import org.paratrain.train.checkpoint.CheckpointStore;
import org.paratrain.train.checkpoint.CheckpointWriter;
import picocli.CommandLine.Option;

/**
 * The options that keep a long run safe, and say where it starts: checkpoints, resuming,
 * initial parameters, restarts after a failure, and how long a rank may wait for another.
 * A checkpoint to resume wins over {@code --init-from}: with {@code --resume DIR
 * --resume-if-present}, a run resumes when DIR holds a checkpoint and starts from the
 * {@code --init-from} file otherwise (a restart after a failure resumes from its checkpoint too).
 */
public final class CheckpointOptions {
    /** Options as picocli fills them in; train takes this class as a mixin. */
    public CheckpointOptions() { }

    /** The interval by time when none is given: a checkpoint costs a small share of a minute's training. */
    public static final double DEFAULT_SECONDS = 60;

    @Option(names = "--checkpoint-dir", description = "Save the full training state into this directory (every "
        + "60 s of training, unless --checkpoint-every, --checkpoint-every-steps or "
        + "--checkpoint-every-seconds says otherwise; every epoch with --shard-optimizer).")
    Path dir;

    @Option(names = "--checkpoint-every-seconds", description = "Save a checkpoint at the first epoch end S seconds "
        + "or more after the last one (or the start); a shorter run saves none.")
    Double everySeconds;

    @Option(names = "--checkpoint-every", description = "Save a checkpoint every N epochs (and after the last).")
    Integer everyEpochs;

    @Option(names = "--checkpoint-every-steps", description = "Mini-batch runs: also save every N updates.")
    Long everySteps;

    @Option(names = "--keep-checkpoints", defaultValue = "2",
        description = "How many of the newest checkpoints to keep (default ${DEFAULT-VALUE}).")
    int keep;

    @Option(names = "--resume", description = "Continue from the newest intact checkpoint in this directory (or "
        + "this checkpoint file); any --nodes and --backend, same settings and data. A directory without checkpoints "
        + "is an error, unless --resume-if-present.")
    Path resume;

    @Option(names = "--resume-if-present", description = "With --resume DIR: start from the beginning when DIR holds "
        + "no checkpoint yet (the first run of a job that is restarted with the same command), saying so.")
    boolean resumeIfPresent;

    @Option(names = "--init-from", description = "Start from the parameters of this file instead of the model's "
        + "initialiser: a safetensors file (export --format safetensors, or any with the same tensors: names, shapes, "
        + "F64 or F32) or a paratrain model.json (a name ending in .json). A checkpoint to --resume wins over it.")
    Path initFrom;

    /** What {@code --init-from} holds for the model being trained, once {@link #readInit} has read it; else null. */
    org.paratrain.export.InitialParameters initial;

    @Option(names = "--max-restarts", defaultValue = "0",
        description = "When a rank fails or hangs, restart from the newest checkpoint up to N times (default 0).")
    int maxRestarts;

    @Option(names = "--min-nodes", description = "With --max-restarts: when a failure repeats, restart on one rank "
        + "fewer each time, down to this many (default: always --nodes).")
    Integer minNodes;

    /** Seconds a rank may wait for another: {@code --comm-timeout}, an option of the backend, set by the command. */
    double commTimeoutSeconds = 300;

    /** Whether the optimizer is sharded (its state gathered from every rank): set by the command. */
    boolean sharded;

    /** Checks the values and how they combine, before any work; messages name the option. */
    void check(int nodes, int batchSize) {
        if (everyEpochs != null && everyEpochs < 1) {
            throw new IllegalArgumentException("--checkpoint-every must be at least 1 epoch, got " + everyEpochs);
        }
        if (everySteps != null && everySteps < 1) {
            throw new IllegalArgumentException("--checkpoint-every-steps must be at least 1, got " + everySteps);
        }
        if (everySteps != null && batchSize == 0) {
            throw new IllegalArgumentException("--checkpoint-every-steps needs mini-batches (--batch-size); a "
                + "full-batch epoch is one step: use --checkpoint-every");
        }
        if (everySeconds != null && !(everySeconds > 0 && everySeconds < 1e9)) {
            throw new IllegalArgumentException("--checkpoint-every-seconds must be a number of seconds above 0, got "
                + everySeconds);
        }
        if (everySeconds != null && sharded) {
            throw new IllegalArgumentException("--checkpoint-every-seconds cannot be used with --shard-optimizer: every "
                + "rank holds a slice of the state and all would have to stop at the same moment; use "
                + "--checkpoint-every");
        }
        if ((everyEpochs != null || everySteps != null || everySeconds != null) && dir == null) {
            throw new IllegalArgumentException("--checkpoint-every, --checkpoint-every-steps and "
                + "--checkpoint-every-seconds need --checkpoint-dir");
        }
        if (keep < 1) {
            throw new IllegalArgumentException("--keep-checkpoints must be at least 1, got " + keep);
        }
        if (maxRestarts < 0) {
            throw new IllegalArgumentException("--max-restarts must be at least 0, got " + maxRestarts);
        }
        if (minNodes != null && (minNodes < 1 || minNodes > nodes)) {
            throw new IllegalArgumentException("--min-nodes must be in [1, " + nodes + "] (--nodes), got " + minNodes);
        }
        if (minNodes != null && maxRestarts == 0) {
            throw new IllegalArgumentException("--min-nodes has no effect without --max-restarts");
        }
        if (resumeIfPresent && resume == null) {
            throw new IllegalArgumentException("--resume-if-present needs --resume DIR, the directory to look in");
        }
        if (resume != null && !resumeIfPresent && !java.nio.file.Files.exists(resume)) {
            throw new IllegalArgumentException("--resume " + resume + ": no such file or directory");
        }
    }

    /** True when checkpoints are written or read. */
    boolean active() {
        return dir != null || resume != null;
    }

    Duration commTimeout() {
        return Duration.ofNanos((long) (commTimeoutSeconds * 1e9));
    }

    /** The fewest ranks a restart may use. */
    int minNodes(int nodes) {
        return minNodes == null ? nodes : minNodes;
    }

    /** What every checkpoint of this run records; see {@link CheckpointRecords#meta}. */
    static ObjectNode meta(ObjectNode settings, ObjectNode fingerprint, ObjectNode provenance) {
        return CheckpointRecords.meta(settings, fingerprint, provenance);
    }

    /** The state to continue from, checked against {@code meta}; see {@link CheckpointRecords#load}. */
    static TrainingState load(Path from, JsonNode meta, java.util.function.Consumer<String> warnings) {
        return CheckpointRecords.load(from, meta, warnings);
    }

    /**
     * The state to continue from, saying on {@code out} which checkpoint and epoch; null when
     * {@code --resume-if-present} finds no checkpoint yet, said too.
     */
    TrainingState load(JsonNode meta, java.util.function.Consumer<String> warnings, java.io.PrintWriter out) {
        if (resumeIfPresent && (!java.nio.file.Files.exists(resume) || java.nio.file.Files.isDirectory(resume)
            && org.paratrain.train.checkpoint.CheckpointStore.files(resume).isEmpty())) {
            out.println("no checkpoint in " + resume + " yet: starting from the beginning (--resume-if-present)");
            return null;
        }
        Path[] file = new Path[1];
        TrainingState s = CheckpointRecords.load(resume, meta, warnings, f -> file[0] = f);
        out.printf(java.util.Locale.ROOT, "resuming from %s: after epoch %d%s%n", file[0], s.epoch(),
            s.step() > 0 ? ", step " + s.step() : "");
        return s;
    }

    /** A writer of this run's checkpoints, or null when none are asked for; told each file written. */
    CheckpointWriter writer(JsonNode meta, java.util.function.Consumer<Path> written) {
        return dir == null ? null : new CheckpointWriter(new CheckpointStore(dir, keep), meta, written);
    }

    /** Trains this rank of an MPI job; rank 0 saves checkpoints (as the ranks share the state, one copy is all). */
    TrainingResult onMpiRank(JsonNode meta, TrainingState resumed, TrainingControl.EpochListener listener,
                             java.util.function.Function<TrainingControl, TrainingResult> run) {
        CheckpointWriter w = meta == null ? null : writer(meta, f -> { });
        try {
            return run.apply(control(resumed, w, listener));
        } finally {
            if (w != null) {
                w.close();
            }
        }
    }

    /** The control of one attempt: from {@code state} (or the start), saving with {@code writer} if any. */
    TrainingControl control(TrainingState state, CheckpointWriter writer, TrainingControl.EpochListener listener) {
        // Every rank knows when a checkpoint is due (a sharded optimizer's state is gathered from
        // all of them); only the writer's rank writes it, the others pass it on to nothing.
        java.util.function.Consumer<TrainingState> sink = writer != null ? writer : dir != null ? s -> { } : null;
        // Nothing given: by time, which costs the same share of any run (every epoch made a 3 s run
        // of small epochs take 75 s); a sharded state must be saved by count, every epoch.
        boolean none = everyEpochs == null && everySteps == null && everySeconds == null;
        TrainingControl.Checkpoints c = sink == null ? null : new TrainingControl.Checkpoints(
            none && sharded ? 1 : everyEpochs == null ? 0 : everyEpochs, everySteps == null ? 0 : everySteps,
            none && !sharded ? DEFAULT_SECONDS : everySeconds == null ? 0 : everySeconds, sink);
        return new TrainingControl(state, c, listener, commTimeout()).withInitial(initial == null ? null
            : initial.params());
    }

    /**
     * Reads {@code --init-from}, if given, for the model of {@code features} inputs and {@code classes}
     * classes, its first layer matched to the data's {@code columns} by name (null: no names).
     */
    void readInit(org.paratrain.train.spec.ModelSpec model, int features, int classes,
                  org.paratrain.data.Columns columns) {
        if (initFrom != null) {
            initial = org.paratrain.export.InitialParameters.read(initFrom, model, features, classes, columns);
        }
    }

    /**
     * Says on {@code out} where the run starts, when {@code --init-from} was given, and returns
     * the record for the training section of result.json and model.json (null without
     * {@code --init-from}): the file, its format and SHA-256, and whether its parameters were
     * applied (not when {@code resumed} from a checkpoint, whose parameters win).
     */
    ObjectNode initRecord(boolean resumed, java.io.PrintWriter out) {
        if (initial == null) {
            return null;
        }
        out.println(resumed ? "--init-from " + initFrom + " not applied: the checkpoint resumed from wins"
            : "starting from the parameters of " + initFrom + " (" + initial.format() + ")");
        return initial.record().put("applied", !resumed);
    }
}
