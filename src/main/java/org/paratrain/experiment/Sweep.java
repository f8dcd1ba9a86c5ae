package org.paratrain.experiment;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntConsumer;
import org.paratrain.data.Dataset;
import org.paratrain.train.Training;
import org.paratrain.train.TrainingResult;

/**
 * Runs a {@link SweepSpec}: first every warm-up run, then the timed runs, with node counts
 * interleaved within each repeat, so that a slow moment of a shared machine spreads over
 * all counts instead of landing on one.
 */
public final class Sweep {
    private Sweep() { }

    /** The timed runs of one node count, in repeat order. */
    public record Point(int nodes, List<TrainingResult> runs) { }

    /**
     * Runs the sweep on the local backend.
     *
     * @param progress called with the number of runs finished so far (warm-up included)
     * @return one point per node count, in the order of {@code spec.nodes()}
     */
    public static List<Point> run(Dataset data, SweepSpec spec, IntConsumer progress) {
        int[] nodes = spec.nodes();
        int done = 0;
        for (int w = 0; w < spec.warmup(); w++) {
            for (int p : nodes) {
                Training.local(data, spec.base().withNodes(p));
                progress.accept(++done);
            }
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
            points.add(new Point(nodes[i], List.copyOf(runs.get(i))));
        }
        return points;
    }
}
