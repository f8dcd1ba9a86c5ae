package org.paratrain.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.paratrain.train.LossReduction;
import org.paratrain.train.Recipe;
import org.paratrain.train.TrainConfig;

class SpecCodecTest {
    static final Recipe MLP_ADAM = new Recipe("mlp", 10, "adam", 0.9, 1e-4, "cosine", 100, 256, 7, "256,128", "relu");
    static final TrainConfig CONFIG = new TrainConfig(2, 12, 1e-3, false, LossReduction.MEAN, 32, "ring");

    /** What a file says ran is what ran: an Adam-trained MLP is recorded as one, and reads back into the same specs. */
    @Test
    void anAdamTrainedNetworkIsRecordedAsOneAndReadsBack() throws Exception {
        JsonNode written = RunWriter.json().readTree(RunWriter.json().writeValueAsString(
            SpecCodec.encode(CONFIG, MLP_ADAM)));
        assertEquals("adam", written.at("/optimizer/kind").asText());
        assertEquals("cosine", written.at("/optimizer/schedule").asText());
        assertEquals(100, written.at("/optimizer/warmup_steps").asLong());
        assertTrue(written.at("/model/initial_weights").asText().startsWith("he-normal"), written.toString());
        assertTrue(written.at("/model/intercept").asBoolean(), "an MLP has biases");
        assertEquals("256,128", written.at("/model/layers").asText());
        SpecCodec.Settings back = SpecCodec.decode(written);
        assertEquals(MLP_ADAM, back.recipe());
        assertEquals(CONFIG, back.config());
    }

    @Test
    void thePapersSettingsReadBack() {
        SpecCodec.Settings back = SpecCodec.decode(SpecCodec.encode(TrainConfig.paper(), Recipe.paper()));
        assertEquals(TrainConfig.paper(), back.config());
        assertEquals(Recipe.paper(), back.recipe());
    }

    /** Node count and exchange never change the numbers, so they are not differences; anything else is named. */
    @Test
    void differencesNameWhatChangesTheNumbersOnly() {
        JsonNode a = SpecCodec.encode(CONFIG, MLP_ADAM);
        assertEquals(List.of(), SpecCodec.differences(a, SpecCodec.encode(CONFIG.withNodes(7).withExchange("tree"),
            MLP_ADAM)));
        List<String> d = SpecCodec.differences(a, SpecCodec.encode(CONFIG.withLearningRate(0.5),
            MLP_ADAM.withBatches(128, 7)));
        assertEquals(2, d.size(), d.toString());
        assertTrue(d.get(0).contains("learning_rate") && d.get(0).contains("0.001") && d.get(0).contains("0.5"),
            d.toString());
        assertTrue(d.get(1).contains("batch_size"), d.toString());
    }
}
