import org.paratrain.data.Dataset;
import org.paratrain.data.MakeRegression;
import org.paratrain.data.NumpyRandomState;
import org.paratrain.train.TrainConfig;
import org.paratrain.train.Training;
import org.paratrain.train.TrainingResult;

/** Trains the paper's model on 4 in-JVM ranks from a Java program. */
public class Example {
    public static void main(String[] args) {
        // scikit-learn's make_regression(n_samples=500, n_features=1, random_state=42), bit for bit
        Dataset data = new MakeRegression(500, 1, 1, 0.0, 0.0, true)
            .generate(new NumpyRandomState(42)).data();
        // 300 epochs of full-batch gradient descent, lr 1e-4, on 4 ranks
        TrainingResult result = Training.local(data, TrainConfig.paper().withNodes(4));
        System.out.printf("w = %.6f, final loss = %.3g, %.2f ms on %d ranks%n",
            result.params()[0], result.finalLoss(), result.trainSeconds() * 1e3, result.nodes());
    }
}
