package org.paratrain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.paratrain.data.MakeRegression;
import org.paratrain.data.NumpyRandomState;

/** The README's Java example is examples/Example.java verbatim, and it compiles, runs and is right. */
class ReadmeExampleTest {
    @TempDir
    Path classes;

    @Test
    void readmeShowsTheExampleVerbatim() throws Exception {
        String readme = Files.readString(Path.of("README.md"));
        String example = Files.readString(Path.of("examples/Example.java"));
        assertTrue(readme.contains(example.strip()), "README.md must show examples/Example.java verbatim");
    }

    @Test
    void docsShowTheModelExampleVerbatim() throws Exception {
        String doc = Files.readString(Path.of("docs/java-api.md"));
        assertTrue(doc.contains(Files.readString(Path.of("examples/ModelExample.java")).strip()),
            "docs/java-api.md must show examples/ModelExample.java verbatim");
    }

    @Test
    void docsShowTheNumpyLoaderVerbatim() throws Exception {
        assertTrue(Files.readString(Path.of("docs/model-format.md")).contains(
            Files.readString(Path.of("examples/predict_numpy.py")).strip()),
            "docs/model-format.md must show examples/predict_numpy.py verbatim");
    }

    @Test
    void modelExampleTrainsSavesLoadsAndPredictsTheRightCluster() throws Exception {
        Path file = classes.resolve("model.json");
        String out = run("ModelExample", file.toString());
        assertTrue(out.startsWith("class right, probabilities ["), out);
        assertTrue(org.paratrain.TrainedModel.load(file).isClassifier());
    }

    /** Compiles examples/NAME.java and runs its main, returning what it printed. */
    private String run(String name, String... args) throws Exception {
        int status = ToolProvider.getSystemJavaCompiler().run(null, null, null, "-d", classes.toString(),
            "-cp", System.getProperty("java.class.path"), "examples/" + name + ".java");
        assertEquals(0, status, "examples/" + name + ".java does not compile");
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream old = System.out;
        try (URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()},
            getClass().getClassLoader())) {
            System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
            loader.loadClass(name).getMethod("main", String[].class).invoke(null, (Object) args);
        } finally {
            System.setOut(old);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }

    @Test
    void exampleCompilesRunsAndFindsTheTrueWeight() throws Exception {
        String out = run("Example");
        Matcher m = Pattern.compile("w = ([0-9.]+), final loss = (\\S+), .* on 4 ranks").matcher(out);
        assertTrue(m.find(), out);
        double trueCoef = new MakeRegression(500, 1, 1, 0.0, 0.0, true).generate(new NumpyRandomState(42)).coef()[0];
        assertEquals(trueCoef, Double.parseDouble(m.group(1)), 1e-6);
        assertTrue(Double.parseDouble(m.group(2)) < 1e-12, out);
    }
}
