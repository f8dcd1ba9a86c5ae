package org.paratrain.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.paratrain.data.Dataset;
import org.paratrain.data.MakeRegression;
import org.paratrain.data.NumpyRandomState;
import org.paratrain.train.spec.ExchangeSpec;
import org.paratrain.train.spec.ExchangeSpec.Sum;
import org.paratrain.train.spec.ModelSpec;
import org.paratrain.train.spec.SpecException;
import org.paratrain.train.spec.TrainSpec;

/**
 * The one-vector sums in training: with a fixed-point sum every node count and every
 * allreduce give the bits of one rank (parameters and every epoch's loss); the float sum is
 * close to the block table but not reproducible by construction; the fixed sums agree with
 * the block table to within their error bound.
 */
class SumTrainingTest {
    static final Dataset DATA = new MakeRegression(700, 3, 2, 0.5, 3.0, true).generate(new NumpyRandomState(4)).data();
    static final List<String> ALGORITHMS = List.of("star", "tree", "recursive-doubling", "ring", "rabenseifner");

    static TrainSpec linear(Sum sum, String algorithm) {
        return TrainSpec.paper().withModel(new ModelSpec.Linear(true)).withEpochs(40)
            .withExchange(ExchangeSpec.parse(algorithm, sum));
    }

    @ParameterizedTest
    @EnumSource(value = Sum.class, names = {"FIXED_1", "FIXED_2", "FIXED_HALF"})
    void fixedSumsGiveTheBitsOfOneRankAtAnyNodeCountWithAnyAlgorithm(Sum sum) {
        TrainingResult one = Training.local(DATA, linear(sum, "star"));
        for (String algorithm : ALGORITHMS) {
            for (int p : new int[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 17, 33}) {
                TrainingResult r = Training.local(DATA, linear(sum, algorithm).withNodes(p));
                assertArrayEquals(one.params(), r.params(), 0.0, sum + " " + algorithm + " at " + p);
                assertArrayEquals(one.history().loss(), r.history().loss(), 0.0, sum + " " + algorithm + " at " + p);
            }
        }
    }

    /** Mini-batches, a classifier and a network with Adam: still the same bits at 1, 2, 3 and 7 ranks. */
    @ParameterizedTest
    @EnumSource(value = Sum.class, names = {"FIXED_1", "FIXED_2", "FIXED_HALF"})
    void fixedSumsKeepTheBitsOfMiniBatchNetworks(Sum sum) {
        Dataset xor = Xor.data(384);
        TrainSpec spec = Xor.network().withExchange(ExchangeSpec.parse("ring", sum));
        TrainingResult one = Training.local(xor, spec);
        for (int p : new int[] {2, 3, 7}) {
            TrainingResult r = Training.local(xor, spec.withNodes(p)
                .withExchange(ExchangeSpec.parse(p == 3 ? "rabenseifner" : "tree", sum)));
            assertArrayEquals(one.params(), r.params(), 0.0, p + " ranks");
            assertArrayEquals(one.history().loss(), r.history().loss(), 0.0, p + " ranks");
        }
    }

    /** Against the block table (one rank's block-ordered double sum): both fixed sums stay within a few ulps. */
    @ParameterizedTest
    @EnumSource(value = Sum.class, names = {"FIXED_1", "FIXED_2", "FIXED_HALF", "FLOAT"})
    void everySumTrainsTheSameModelAsTheBlockTable(Sum sum) {
        TrainingResult blocks = Training.local(DATA, linear(Sum.BLOCKS, "ring").withNodes(3));
        TrainingResult r = Training.local(DATA, linear(sum, "ring").withNodes(3));
        for (int j = 0; j < blocks.params().length; j++) {
            double tolerance = (sum == Sum.FIXED_HALF ? 1e-6 : sum == Sum.FIXED_1 ? 1e-9 : 1e-12)
                * Math.max(1, Math.abs(blocks.params()[j]));
            assertEquals(blocks.params()[j], r.params()[j], tolerance, sum + " parameter " + j);
        }
        assertEquals(blocks.finalLoss(), r.finalLoss(), (sum == Sum.FIXED_HALF ? 1e-6 : 1e-9) * blocks.finalLoss());
    }

    /**
     * Master-worker with a one-vector sum: each rank sends its vector to rank 0, which adds and
     * sends back. The fixed sums give the bits of any other algorithm with them, at any node
     * count; the float sum adds the ranks' vectors in rank order (star's bits). Blocks stays
     * master-worker's default; results name the scheme.
     */
    @ParameterizedTest
    @ValueSource(strings = {"fixed:1", "fixed:2", "fixed:half", "float"})
    void masterWorkerTakesEverySum(String name) {
        Sum sum = Sum.parse(name);
        for (int p : new int[] {1, 2, 3, 4, 5, 9}) {
            TrainingResult mw = Training.local(DATA, linear(sum, "master-worker").withNodes(p));
            TrainingResult reference = Training.local(DATA, linear(sum, sum == Sum.FLOAT ? "star" : "ring")
                .withNodes(sum == Sum.FLOAT ? p : 1));
            assertArrayEquals(reference.params(), mw.params(), 0.0, name + " at " + p);
            assertArrayEquals(reference.history().loss(), mw.history().loss(), 0.0, name + " at " + p);
            assertEquals("master-worker", mw.algorithm());
        }
        assertEquals(Sum.DEFAULT_FIXED, ExchangeSpec.parse("master-worker").sum(), "one default for every scheme");
        assertEquals(Sum.DEFAULT_FIXED, ExchangeSpec.parse("ring").sum());
    }

    /** A NaN in one rank's gradient is seen by every rank at the same step: the run ends as diverged. */
    @org.junit.jupiter.api.Test
    void aBlowUpEndsAsDivergenceOnEveryRank() {
        assertThrows(DivergenceException.class, () -> Training.local(DATA, linear(Sum.FIXED_2, "ring").withNodes(3)
            .withLearningRate(10).withEpochs(2000)));
    }
}
