package org.paratrain.comm.mpi;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The ranks' start-up cache is used only when their JVM options keep the modules it was made
 * with: a JVM with other module options refuses the cache with several lines of errors a rank.
 */
class SameModulesTest {
    @Test
    void optionsThatLeaveTheModulesAloneKeepTheCache() {
        assumeTrue(System.getenv("JDK_JAVA_OPTIONS") == null, "JDK_JAVA_OPTIONS is set here");
        assertTrue(MpiJob.sameModules(List.of()));
        assertTrue(MpiJob.sameModules(List.of("-Xmx1g", "-Dparatrain.scalar=true", "-XX:+UseSerialGC")));
    }

    @Test
    void everySpellingOfAModuleOptionDropsTheCache() {
        for (List<String> opts : List.of(List.of("--add-modules=jdk.incubator.vector"),
            List.of("--add-modules", "jdk.incubator.vector"), List.of("-p", "/opt/mods"),
            List.of("--module-path=/opt/mods"), List.of("--limit-modules", "java.base"),
            List.of("--patch-module", "java.base=/tmp/p"), List.of("--upgrade-module-path", "/opt/up"),
            List.of("-Xmx1g", "@/tmp/options.txt"))) {
            assertFalse(MpiJob.sameModules(opts), opts.toString());
        }
    }
}
