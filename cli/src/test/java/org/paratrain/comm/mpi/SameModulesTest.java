package org.paratrain.comm.mpi;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The ranks' JVM options. Their start-up cache is used only when those keep the modules it was
 * made with and set no other cache or class sharing: a JVM refuses a cache made with other module
 * options, and stops at start when given it beside another archive. And they carry the launcher's
 * compile threshold.
 */
class SameModulesTest {
    @Test
    void optionsThatLeaveTheModulesAloneKeepTheCache() {
        assumeTrue(System.getenv("JDK_JAVA_OPTIONS") == null && System.getenv("JAVA_TOOL_OPTIONS") == null
            && System.getenv("_JAVA_OPTIONS") == null,
            "the JVM's option variables are set here");
        assertTrue(MpiJob.sameModules(List.of()));
        assertTrue(MpiJob.sameModules(List.of("-Xmx1g", "-Dparatrain.scalar=true", "-XX:+UseSerialGC")));
    }

    @Test
    void everySpellingOfAModuleOptionDropsTheCache() {
        for (List<String> opts : List.of(List.of("--add-modules=jdk.incubator.vector"),
            List.of("--add-modules", "jdk.incubator.vector"), List.of("-p", "/opt/mods"),
            List.of("--module-path=/opt/mods"), List.of("--limit-modules", "java.base"),
            List.of("--patch-module", "java.base=/tmp/p"), List.of("--upgrade-module-path", "/opt/up"),
            List.of("-Xmx1g", "@/tmp/options.txt"), List.of("--add-opens", "java.base/java.lang=ALL-UNNAMED"),
            List.of("--add-exports=java.base/sun.nio.ch=ALL-UNNAMED"), List.of("-Xshare:auto"),
            List.of("-XX:AOTMode=off"), List.of("-XX:SharedArchiveFile=/tmp/a.jsa"))) {
            assertFalse(MpiJob.sameModules(opts), opts.toString());
        }
    }

    /** The ranks' JVMs get the launcher's compile threshold: the stand-in's options are checked against the script. */
    @Test
    void theRanksGetTheLaunchersCompileThreshold() {
        assertTrue(org.paratrain.LauncherImitation.JVM_OPTIONS.contains(MpiJob.JIT_OPTION), MpiJob.JIT_OPTION);
    }
}
