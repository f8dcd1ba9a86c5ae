package org.paratrain.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.paratrain.model.MultilayerPerceptron;
import org.paratrain.train.LossReduction;
import org.paratrain.train.spec.ExchangeSpec;
import org.paratrain.train.spec.ModelSpec;
import org.paratrain.train.spec.OptimizerSpec;
import org.paratrain.train.spec.RunSpec;
import org.paratrain.train.spec.TrainSpec;

class SpecCodecTest {
    static final TrainSpec MLP_ADAM = new TrainSpec(
        new ModelSpec.Mlp(List.of(256, 128), MultilayerPerceptron.Activation.RELU, MultilayerPerceptron.Head.SOFTMAX,
            10),
        new OptimizerSpec(OptimizerSpec.Method.ADAM, 1e-3, 0.9, 1e-4, new OptimizerSpec.Schedule.Cosine(), 100),
        ExchangeSpec.parse("ring"), new RunSpec(new RunSpec.Nodes.Count(2), 12, 256, 7, LossReduction.MEAN, 32));

    /** What a file says ran is what ran: an Adam-trained MLP is recorded as one, and reads back into the same specs. */
    @Test
    void anAdamTrainedNetworkIsRecordedAsOneAndReadsBack() throws Exception {
        JsonNode written = RunWriter.json().readTree(RunWriter.json().writeValueAsString(SpecCodec.encode(MLP_ADAM)));
        assertEquals("mlp", written.at("/model/kind").asText());
        assertEquals("adam", written.at("/optimizer/kind").asText());
        assertEquals(0.9, written.at("/optimizer/beta1").asDouble());
        assertEquals("cosine", written.at("/optimizer/schedule").asText());
        assertEquals(100, written.at("/optimizer/warmup_steps").asLong());
        assertTrue(written.at("/model/initial_weights").asText().startsWith("he-normal"), written.toString());
        assertTrue(written.at("/model/initial_weights").asText().endsWith("seed 7"), written.toString());
        assertTrue(written.at("/model/intercept").asBoolean(), "an MLP has biases");
        assertEquals("256,128", written.at("/model/layers").asText());
        assertEquals(2, written.at("/nodes").asInt());
        assertEquals("ring", written.at("/exchange").asText());
        assertEquals(MLP_ADAM, SpecCodec.decode(written));
    }

    /**
     * {@code --rebalance} reads back, steps or auto, and a checkpoint continues under another
     * value: it changes who computes which blocks, never the numbers.
     */
    @Test
    void rebalanceReadsBackAndNeverBlocksAResume() throws Exception {
        for (int steps : new int[] {0, 50, RunSpec.REBALANCE_AUTO}) {
            TrainSpec spec = MLP_ADAM.withRebalance(steps);
            JsonNode written = RunWriter.json().readTree(RunWriter.json().writeValueAsString(SpecCodec.encode(spec)));
            assertEquals(steps == RunSpec.REBALANCE_AUTO ? "auto" : Integer.toString(steps),
                written.at("/rebalance_steps").asText());
            assertEquals(spec, SpecCodec.decode(written));
            assertTrue(SpecCodec.differences(SpecCodec.encode(MLP_ADAM), written).isEmpty(), written.toString());
        }
    }

    /** Every kind of model, schedule and exchange reads back into the spec that was written. */
    @Test
    void everyKindReadsBack() {
        var relu = MultilayerPerceptron.Activation.RELU;
        List<ModelSpec> models = List.of(new ModelSpec.Linear(true), new ModelSpec.Linear(false),
            new ModelSpec.Logistic(true), new ModelSpec.Softmax(0, false), new ModelSpec.Softmax(7, true),
            new ModelSpec.Mlp(List.of(), MultilayerPerceptron.Activation.TANH, MultilayerPerceptron.Head.SOFTMAX, 3),
            new ModelSpec.Mlp(List.of(5, 4), MultilayerPerceptron.Activation.SIGMOID,
                MultilayerPerceptron.Head.SQUARED, 0),
            new ModelSpec.Mlp(List.of(9), relu, MultilayerPerceptron.Head.SOFTMAX, 0),
            new ModelSpec.Mlp(List.of(6), relu, MultilayerPerceptron.Head.SOFTMAX, 4,
                MultilayerPerceptron.Precision.FLOAT32));
        List<OptimizerSpec.Schedule> schedules = List.of(new OptimizerSpec.Schedule.Constant(),
            new OptimizerSpec.Schedule.Cosine(), new OptimizerSpec.Schedule.Step(100, 0.5));
        for (ModelSpec m : models) {
            for (OptimizerSpec.Method method : OptimizerSpec.Method.values()) {
                for (OptimizerSpec.Schedule sc : schedules) {
                    for (String ex : List.of("master-worker", "auto", "rabenseifner", "native")) {
                        TrainSpec spec = new TrainSpec(m, new OptimizerSpec(method, 0.25, 0.5, 0.125, sc, 3),
                            ExchangeSpec.parse(ex), TrainSpec.paper().run().withBatches(4, 11));
                        assertEquals(spec, SpecCodec.decode(SpecCodec.encode(spec)), spec.toString());
                    }
                }
            }
        }
        TrainSpec auto = TrainSpec.paper().withRun(TrainSpec.paper().run().withNodes(new RunSpec.Nodes.Auto()));
        assertEquals(auto, SpecCodec.decode(SpecCodec.encode(auto)));
    }

    @Test
    void thePapersSettingsReadBack() {
        JsonNode paper = SpecCodec.encode(TrainSpec.paper());
        assertEquals("linear", paper.at("/model/kind").asText());
        assertEquals("gd", paper.at("/optimizer/kind").asText());
        assertEquals("zeros", paper.at("/model/initial_weights").asText());
        assertEquals(TrainSpec.paper(), SpecCodec.decode(paper));
    }

    /** Node count and exchange never change the numbers, so they are not differences; anything else is named. */
    @Test
    void differencesNameWhatChangesTheNumbersOnly() {
        JsonNode a = SpecCodec.encode(MLP_ADAM);
        assertEquals(List.of(), SpecCodec.differences(a, SpecCodec.encode(MLP_ADAM.withNodes(7)
            .withExchange(ExchangeSpec.parse("tree")))));
        List<String> d = SpecCodec.differences(a, SpecCodec.encode(MLP_ADAM.withLearningRate(0.5)
            .withBatches(128, 7)));
        assertEquals(2, d.size(), d.toString());
        assertTrue(d.get(0).contains("learning_rate") && d.get(0).contains("0.001") && d.get(0).contains("0.5"),
            d.toString());
        assertTrue(d.get(1).contains("batch_size"), d.toString());
    }
}
