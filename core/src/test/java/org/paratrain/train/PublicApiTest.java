package org.paratrain.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The test hook stays out of the API users call: no public entry point of {@link Training}
 * takes a {@link FailureInjection} (or the {@code null} that stood for "none"), and a
 * failure can be made only by tests in this package or parsed from the command line's hidden
 * option.
 */
class PublicApiTest {

    @Test
    void trainingsPublicMethodsTakeNoFailureInjection() {
        List<String> leaks = Arrays.stream(Training.class.getDeclaredMethods())
            .filter(m -> Modifier.isPublic(m.getModifiers()))
            .filter(m -> Arrays.asList(m.getParameterTypes()).contains(FailureInjection.class))
            .map(Method::toString).toList();
        assertEquals(List.of(), leaks);
    }

    @Test
    void aFailureInjectionIsMadeOnlyInThisPackageOrFromTheOptionsText() {
        for (Constructor<?> c : FailureInjection.class.getDeclaredConstructors()) {
            assertTrue(!Modifier.isPublic(c.getModifiers()) && !Modifier.isProtected(c.getModifiers()), c.toString());
        }
        assertTrue(!FailureInjection.class.isRecord(), "a public record would make its constructor public");
    }
}
