import org.paratrain.Trainer;
import org.paratrain.data.Dataset;
import org.paratrain.data.MakeRegression;
import org.paratrain.train.TrainingResult;

/** Trains the paper's model on 4 in-JVM ranks from a Java program. */
public class Example {
    public static void main(String[] args) {
        // scikit-learn's make_regression(n_samples=500, n_features=1, random_state=42), bit for bit
        Dataset data = MakeRegression.of(500, 1).generate(42).data();
        // 300 epochs of full-batch gradient descent, lr 1e-4, on 4 ranks; a line every 100 epochs
        TrainingResult result = Trainer.on(data)
            .linear(false).gd(1e-4).epochs(300).nodes(4)
            .onEpoch((epoch, history) -> {
                if (epoch % 100 == 0) {
                    System.out.printf("epoch %d: loss %.3g%n", epoch, history.loss()[epoch - 1]);
                }
            })
            .run();
        System.out.printf("w = %.6f, final loss = %.3g, %.2f ms on %d ranks%n",
            result.params()[0], result.finalLoss(), result.trainSeconds() * 1e3, result.nodes());
    }
}
