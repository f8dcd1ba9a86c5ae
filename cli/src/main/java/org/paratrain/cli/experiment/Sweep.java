package org.paratrain.cli.experiment;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntConsumer;
import java.nio.file.Path;
import org.paratrain.comm.BackendException;
import org.paratrain.comm.JobLaunch;
import org.paratrain.train.Backend;
import org.paratrain.data.Dataset;
import org.paratrain.data.PaperFormat;
import org.paratrain.io.AtomicFiles;
import org.paratrain.train.spec.TrainSpec;
import org.paratrain.train.Training;
import org.paratrain.train.TrainingResult;
import org.paratrain.experiment.ResultCodec;
import org.paratrain.experiment.RunWriter;
import org.paratrain.experiment.SpecCodec;

/**
 * Runs a {@link SweepSpec}: first every warm-up run, then the timed runs, with node counts
 * interleaved within each repeat, so that a slow moment of a shared machine spreads over
 * all counts instead of landing on one.
 */
public final class Sweep {
    private Sweep() { }

    /**
     * The timed runs of one node count.
     *
     * @param nodes  the node count
     * @param warmup the untimed runs of this count before them
     * @param runs   its timed runs' results, in repeat order
     */
    public record Point(int nodes, int warmup, List<TrainingResult> runs) { }

    /**
     * Runs the sweep on the MPI backend: one mpirun per node count, each doing the warm-up
     * and the timed runs of that count (so counts cannot be interleaved as on the local
     * backend).
     *
     * @param data     the training data, written once to a temporary directory for the ranks
     * @param spec     node counts, repeats, warm-up runs and the training settings
     * @param launch   how to start each job; its process count is replaced by each node count's, and
     *                 each job of p ranks holds {@code gcd(p, launch.ranksPerProcess())} ranks a process
     * @param progress called with the number of runs finished so far
     * @return one point per node count, in the order of {@code spec.nodes()}
     */
    public static List<Point> runMpi(Dataset data, SweepSpec spec, JobLaunch launch, IntConsumer progress) {
        Path dir = AtomicFiles.stagingDirectory(Path.of(System.getProperty("java.io.tmpdir"), "paratrain-mpi"));
        try {
            PaperFormat.write(data, dir);
            List<Point> points = new ArrayList<>();
            int done = 0;
            for (int p : spec.nodes()) {
                Path result = dir.resolve("runs-" + p + ".json");
                TrainSpec c = spec.base().withNodes(p);
                Path jobFile = dir.resolve("job-" + p + ".json");
                JobLaunch job = launch.forRanks(p);
                AtomicFiles.writeBytes(jobFile, out -> RunWriter.json().writeValue(out, MpiSweepWorker.job(
                    dir.resolve("X.in"), dir.resolve("y.in"), result, SpecCodec.encode(c), spec.warmup(), spec.repeats(), launch.commTimeout())
                    .put("ranks_per_process", job.ranksPerProcess())));
                List<String> args = List.of(jobFile.toString());
                // A failed job throws: a rank or the launching process has said why.
                Backend.runMpiJobOrFail(job, MpiSweepWorker.class.getName(), args);
                points.add(new Point(p, spec.warmup(), readRuns(result)));
                done += spec.warmup() + spec.repeats();
                progress.accept(done);
            }
            return points;
        } finally {
            AtomicFiles.deleteQuietly(dir);
        }
    }

    private static List<TrainingResult> readRuns(Path file) {
        try {
            List<TrainingResult> runs = new ArrayList<>();
            RunWriter.json().readTree(file.toFile()).forEach(n -> runs.add(ResultCodec.fromJson(n)));
            return List.copyOf(runs);
        } catch (java.io.IOException e) {
            throw new BackendException("cannot read the results of an MPI job from " + file + ": " + e.getMessage());
        }
    }

    /**
     * Runs the sweep on the local backend.
     *
     * @param data     the training data
     * @param spec     node counts, repeats, warm-up runs and the training settings
     * @param progress called with the number of runs finished so far (warm-up included; the rounds
     *                 added to reach {@code spec.warmupSeconds()} are not counted)
     * @return one point per node count, in the order of {@code spec.nodes()}
     */
    public static List<Point> run(Dataset data, SweepSpec spec, IntConsumer progress) {
        int[] nodes = spec.nodes();
        int done = 0;
        // The JIT compiles the training code in the background while it runs, for about the first
        // 0.2 s of runs of the paper's model here: 20 runs of 1 and 2 nodes last 20 ms, and the
        // 1-node runs timed after them took 0.2-0.3 ms instead of 0.11-0.15 (see the README's
        // "Warm-up that lasts").
        long start = System.nanoTime();
        long floor = (long) (spec.warmupSeconds() * 1e9);
        int rounds = 0;
        while (rounds < spec.warmup() || System.nanoTime() - start < floor) {
            for (int p : nodes) {
                Training.local(data, spec.base().withNodes(p));
                if (rounds < spec.warmup()) {
                    progress.accept(++done);
                }
            }
            rounds++;
        }
        List<List<TrainingResult>> runs = new ArrayList<>();
        for (int i = 0; i < nodes.length; i++) {
            runs.add(new ArrayList<>());
        }
        for (int r = 0; r < spec.repeats(); r++) {
            for (int i = 0; i < nodes.length; i++) {
                runs.get(i).add(Training.local(data, spec.base().withNodes(nodes[i])));
                progress.accept(++done);
            }
        }
        List<Point> points = new ArrayList<>();
        for (int i = 0; i < nodes.length; i++) {
            points.add(new Point(nodes[i], rounds, List.copyOf(runs.get(i))));
        }
        return points;
    }
}
