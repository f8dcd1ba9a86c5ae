package org.paratrain.train;

import java.util.List;
import org.paratrain.comm.RankFailedException;
import org.paratrain.comm.local.LocalCluster;
import org.paratrain.data.Dataset;
import org.paratrain.model.LinearRegression;
import org.paratrain.model.Model;
import org.paratrain.optim.GradientDescent;

/**
 * The entry point for programs that train with paratrain: one call trains a model
 * data-parallel on ranks inside this JVM and returns rank 0's result.
 *
 * <pre>{@code
 * Dataset data = new MakeRegression(500, 1, 1, 0.0, 0.0, true)
 *     .generate(new NumpyRandomState(42)).data();
 * TrainingResult r = Training.local(data, TrainConfig.paper().withNodes(4));
 * }</pre>
 */
public final class Training {
    private Training() { }

    /**
     * Trains linear regression (the paper's model) on {@code config.nodes()} in-JVM ranks.
     *
     * @throws DivergenceException if the loss diverged (try a smaller learning rate)
     * @throws RankFailedException if a rank failed; the message names it and the epoch
     */
    public static TrainingResult local(Dataset data, TrainConfig config) {
        Model model = new LinearRegression(data.features(), config.intercept());
        List<TrainingResult> results;
        try {
            results = LocalCluster.run(config.nodes(), comm ->
                new RankTrainer(comm, data, model, new GradientDescent(config.learningRate()), config).train());
        } catch (RankFailedException e) {
            if (e.getCause() instanceof DivergenceException d) {
                throw d;
            }
            throw e;
        }
        return results.get(0);
    }
}
