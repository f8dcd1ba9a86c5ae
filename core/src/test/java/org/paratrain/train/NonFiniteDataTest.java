package org.paratrain.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import org.paratrain.Trainer;
import org.paratrain.data.DataFormatException;
import org.paratrain.data.Dataset;
import org.paratrain.train.spec.TrainSpec;

/** A NaN or infinity handed to training from Java is a data error naming where it is, not a divergence. */
class NonFiniteDataTest {
    @Test
    void nanAndInfinityAreNamedBySampleAndFeature() {
        double[] x = {1, 2, 3, Double.NaN, 5, 6};
        DataFormatException e = assertThrows(DataFormatException.class,
            () -> Training.local(new Dataset(x, new double[] {1, 2, 3}, 3, 2), TrainSpec.paper()));
        assertEquals("the training data: sample 1 (0-based), feature 1 is NaN; features must be finite numbers",
            e.getMessage());
        DataFormatException t = assertThrows(DataFormatException.class, () -> Trainer.on(new Dataset(new double[] {1, 2},
            new double[] {0, Double.POSITIVE_INFINITY}, 2, 1)).run());
        assertEquals("the training data: the target of sample 1 (0-based) is Infinity; targets must be finite numbers",
            t.getMessage());
    }
}
