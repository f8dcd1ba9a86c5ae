import java.nio.file.Path;
import java.util.List;
import org.paratrain.Datasets;
import org.paratrain.TrainedModel;
import org.paratrain.Trainer;

/** Trains a classifier from arrays on 2 ranks, saves it, loads it back and predicts one sample. */
public class ModelExample {
    public static void main(String[] args) throws Exception {
        // Three clusters of 100 points in the plane, one class each
        java.util.Random random = new java.util.Random(1);
        double[][] rows = new double[300][];
        int[] classes = new int[300];
        for (int i = 0; i < rows.length; i++) {
            classes[i] = i % 3;
            rows[i] = new double[] {4 * classes[i] + random.nextGaussian(), random.nextGaussian()};
        }
        // Softmax regression with the defaults for classifiers (Adam, mini-batches), on 2 ranks
        TrainedModel model = Trainer.on(Datasets.ofClasses(rows, classes)).softmax(3).nodes(2).fit()
            .withClassNames(List.of("left", "middle", "right"));
        Path file = Path.of(args.length > 0 ? args[0] : "model.json");
        model.save(file);
        TrainedModel loaded = TrainedModel.load(file);
        double[] sample = {7.5, 0.2};
        int k = (int) loaded.predict(sample);
        System.out.printf("class %s, probabilities %s%n", loaded.classNames().get(k),
            java.util.Arrays.toString(loaded.probabilities(sample)));
    }
}
