package io.sparkattention.kernel;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ImplementationChoiceTest {

    private static final String PROPERTY = "sparkattention.test.family";

    private final ImplementationChoice<String> family = new ImplementationChoice<>("test arithmetic", PROPERTY,
        List.of("auto", "fast", "slow"), name -> name.equals("auto") ? "fast" : name);

    @Test
    @DisplayName("names are trimmed and case-insensitive; auto applies the family's rule")
    void names() {
        assertEquals("slow", family.create(" SLOW "));
        assertEquals("fast", family.create("auto"));
    }

    @Test
    @DisplayName("an unknown name is an error naming the family, the property and every accepted name")
    void unknownName() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> family.create("gpu"));
        assertEquals("test arithmetic \"gpu\" (system property " + PROPERTY + "): expected auto, fast or slow",
            e.getMessage());
    }

    @Test
    @DisplayName("choose reads the system property, auto when it is unset")
    void chooseReadsTheProperty() {
        assertEquals("fast", family.choose(s -> s));
        System.setProperty(PROPERTY, "slow");
        try {
            assertEquals("slow", family.choose(s -> s));
        } finally {
            System.clearProperty(PROPERTY);
        }
    }

    @Test
    @DisplayName("a family without auto is refused")
    void autoIsRequired() {
        assertThrows(IllegalArgumentException.class,
            () -> new ImplementationChoice<>("x", "p", List.of("a", "b"), n -> n));
    }

    @Test
    @DisplayName("attention paths: auto and auto_causal direct up to their cut-offs, tiled beyond; forced paths")
    void attentionPath() {
        int cut = AttentionPath.DIRECT_MAX_LENGTH;
        assertTrue(AttentionPath.AUTO.direct(cut, cut));
        assertTrue(AttentionPath.AUTO.direct(0, 1));
        assertFalse(AttentionPath.AUTO.direct(cut + 1, 1));
        assertFalse(AttentionPath.AUTO.direct(1, cut + 1));
        int causal = AttentionPath.CAUSAL_DIRECT_MAX_LENGTH;
        assertTrue(AttentionPath.AUTO_CAUSAL.direct(causal, causal));
        assertFalse(AttentionPath.AUTO_CAUSAL.direct(causal + 1, causal));
        assertFalse(AttentionPath.AUTO_CAUSAL.direct(causal, causal + 1));
        assertTrue(AttentionPath.DIRECT.direct(4096, 4096));
        assertFalse(AttentionPath.DIRECT.direct(65536, 65536), "a score matrix beyond one array stays tiled");
        assertFalse(AttentionPath.TILED.direct(1, 1));
        assertEquals(AttentionPath.TILED, AttentionPath.named(" Tiled"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> AttentionPath.named("flash"));
        assertTrue(e.getMessage().contains(AttentionPath.PROPERTY) && e.getMessage().contains("auto, direct or tiled"),
            e.getMessage());
        assertEquals(AttentionPath.AUTO, AttentionPath.configured(), "the test JVM sets no " + AttentionPath.PROPERTY);
    }

    @Test
    @DisplayName("the direct arithmetic: scalar by name, vector when the Vector API is visible, auto the vector one then")
    void directArithmetic() {
        assertEquals("scalar", DirectAttention.CHOICE.create("scalar").name());
        if (ImplementationChoice.vectorApiVisible()) {
            assertTrue(DirectAttention.CHOICE.create("vector").name().startsWith("vector:"));
            assertEquals(DirectAttention.CHOICE.create("vector").name(), DirectAttention.CHOICE.create("auto").name());
            assertEquals(DirectAttention.implementation(), DirectAttention.CHOICE.create("auto").name());
        }
    }

    @Test
    @DisplayName("the one heads rule: divides, names both numbers, and the grouped-query rule")
    void heads() {
        assertEquals(8, Heads.headDim(32, 4, "numHeads", "embedDim"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> Heads.headDim(10, 4, "numHeads", "embed_dim", ", the width of column q"));
        assertEquals("numHeads (4) must divide embed_dim (10), the width of column q", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Heads.headDim(10, 0, "numHeads", "embed_dim"));
        assertThrows(IllegalArgumentException.class, () -> Heads.headDim(0, 1, "numHeads", "embed_dim"));
        Heads.checkGroups(8, 2);
        e = assertThrows(IllegalArgumentException.class, () -> Heads.checkGroups(4, 3));
        assertEquals("numKvHeads (3) must divide numHeads (4)", e.getMessage());
    }
}
