package org.paratrain.cli;

import org.paratrain.train.spec.ExchangeSpec;
import org.paratrain.train.spec.TrainSpec;
import java.nio.file.Path;
import org.paratrain.comm.JobLaunch;
import org.paratrain.cli.experiment.SweepSpec;
import picocli.CommandLine.Option;

/** Options shared by {@code paper} and {@code scale}: what to sweep and where to write. */
final class SweepOptions {
    @Option(names = "--nodes", split = ",", description = "Node counts to run, comma-separated.")
    int[] nodes;

    @Option(names = "--repeats", description = "Timed runs per node count.")
    Integer repeats;

    @Option(names = "--warmup", description = "Untimed warm-up runs per node count, before timing (default: the "
        + "command's count, and on the local backend more rounds until the warm-up has lasted 1 s, so that the JIT has "
        + "compiled the training; a count given is taken as it is).")
    Integer warmup;

    @Option(names = "--epochs", description = "Epochs per run.")
    Integer epochs;

    @Option(names = "--lr", description = "Learning rate.")
    Double lr;

    @Option(names = "--block-size", defaultValue = "0", description = "Samples per shard block (0: default).")
    int blockSize;

    @Option(names = "--allreduce", defaultValue = "master-worker",
        description = "How gradients are combined, as train's: master-worker (the paper's; default), shared (local "
            + "ranks take blocks as they are ready), star, tree, recursive-doubling, ring, rabenseifner or native "
            + "(MPI's own, with --backend mpi).")
    String allreduce;

    @Option(names = "--sum",
        description = "How the gradients are added up, as train's: fixed, fixed:1, fixed:2, fixed:half or float (default fixed "
            + "with an allreduce), blocks (master-worker's default).")
    String sum;

    @picocli.CommandLine.Mixin
    BackendOptions backend;

    @Option(names = "--out", description = "Directory for the results.")
    Path out;

    @Option(names = "--quiet", description = "No progress bar.")
    boolean quiet;

    /** The sweep, with the command's defaults where an option was not given. */
    SweepSpec spec(TrainSpec defaults, int[] defaultNodes, int defaultRepeats, int defaultWarmup) {
        boolean mpi = backend.isMpi();   // checks the name before any work
        OptionChecks.exchangeFitsBackend(allreduce, mpi, false);
        TrainSpec base = defaults.withRun(defaults.run().withBlockSize(blockSize)).withExchange(exchange());
        if (epochs != null) {
            base = base.withEpochs(epochs);
        }
        if (lr != null) {
            base = base.withLearningRate(lr);
        }
        return new SweepSpec(nodes == null ? defaultNodes : nodes, repeats == null ? defaultRepeats : repeats,
            warmup == null ? defaultWarmup : warmup, warmup == null && !mpi ? SweepSpec.JIT_WARMUP_SECONDS : 0.0, base);
    }

    /** The exchange {@code --allreduce} and {@code --sum} name. */
    private ExchangeSpec exchange() {
        return ExchangeSpec.parse(allreduce, sum == null ? null : ExchangeSpec.Sum.parse(sum));
    }

    /** How to start the MPI jobs of a sweep over {@code nodeCounts}, or null for the local backend. */
    JobLaunch mpi(int[] nodeCounts) {
        return backend.isMpi() ? backend.sweepLaunchSpec(nodeCounts) : null;
    }

    /** Checks what the sweep spec cannot: options of the other backend, the output directory, the MPI library. */
    void check(picocli.CommandLine.ParseResult given, Path outDir) {
        OptionChecks.backend(given, backend.isMpi());
        OutputPaths.directory("--out", outDir);
        if (backend.isMpi()) {
            InputFiles.mpiLibrary(System.getenv("PARATRAIN_MPI_LIB"));
        }
    }

    Path out(Path defaultOut) {
        return out == null ? defaultOut : out;
    }
}
