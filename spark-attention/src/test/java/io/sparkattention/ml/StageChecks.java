package io.sparkattention.ml;

import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.param.Params;
import org.apache.spark.ml.util.MLWritable;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.nio.file.Path;
import java.util.Objects;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The contracts MLlib checks for its own stages, for JUnit 5: {@code checkParams} of
 * {@code ParamsSuite} and {@code testDefaultReadWrite} of {@code DefaultReadWriteTest}.
 */
public final class StageChecks {

    private StageChecks() {
    }

    /**
     * Every param belongs to the stage, has a doc and appears in {@code explainParams}; every one but
     * those listed as optional has a default; {@code copy} keeps the uid and every value and applies
     * extra params.
     */
    public static void assertParamsContract(Params stage, String... optional) {
        String explained = stage.explainParams();
        for (Param<?> p : stage.params()) {
            assertEquals(stage.uid(), p.parent(), p.name() + ": parent");
            assertFalse(p.doc().isBlank(), p.name() + ": doc");
            assertTrue(explained.contains(p.name() + ": "), p.name() + " missing from explainParams");
            assertSame(p, stage.getParam(p.name()), p.name() + ": one accessor, named like the param");
            boolean isOptional = java.util.Arrays.asList(optional).contains(p.name());
            assertEquals(!isOptional, stage.hasDefault(p), p.name() + ": default");
        }
        Params copy = stage.copy(ParamMap.empty());
        assertNotSame(stage, copy);
        assertEquals(stage.getClass(), copy.getClass());
        assertEquals(stage.uid(), copy.uid());
        assertSameParams(stage, copy);

        Param<?> anyString = null;
        for (Param<?> p : stage.params()) {
            if (p.name().endsWith("Col") && stage.hasDefault(p)) {
                anyString = p;
                break;
            }
        }
        if (anyString != null) {
            @SuppressWarnings("unchecked")
            Param<String> p = (Param<String>) anyString;
            Params extra = stage.copy(new ParamMap().put(p, "extra_value"));
            assertEquals("extra_value", extra.getOrDefault(extra.getParam(p.name())), "copy(extra) applies " + p.name());
            assertFalse(stage.isSet(p) && "extra_value".equals(stage.getOrDefault(p)), "copy(extra) leaves the original");
        }
    }

    /** Same uid, and the same value (set or default) for every param. */
    public static void assertSameParams(Params expected, Params actual) {
        assertEquals(expected.uid(), actual.uid());
        for (Param<?> p : expected.params()) {
            Param<?> q = actual.getParam(p.name());
            assertEquals(expected.isDefined(p), actual.isDefined(q), p.name() + ": defined");
            assertEquals(expected.isSet(p), actual.isSet(q), p.name() + ": set");
            if (expected.isDefined(p)) {
                assertTrue(Objects.deepEquals(expected.getOrDefault(p), actual.getOrDefault(q)), p.name() + ": value");
            }
        }
    }

    /**
     * {@code DefaultReadWriteTest.testDefaultReadWrite}: saves, refuses to save over the saved
     * stage, saves again with {@code overwrite()}, loads through the class's static {@code load},
     * and checks the loaded stage has the same uid and params.
     *
     * @return the loaded stage
     */
    @SuppressWarnings("unchecked")
    public static <T extends Params & MLWritable> T assertSaveLoad(T stage, Path dir) throws IOException {
        String path = dir.resolve(stage.uid()).toString();
        stage.write().save(path);
        IOException exists = assertThrows(IOException.class, () -> stage.write().save(path),
            "saving over an existing path without overwrite()");
        assertTrue(exists.getMessage().contains("already exists"), exists.getMessage());
        stage.write().overwrite().save(path);
        T loaded;
        try {
            loaded = (T) stage.getClass().getMethod("load", String.class).invoke(null, path);
        } catch (InvocationTargetException e) {
            throw new AssertionError("load failed", e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(stage.getClass() + " has no static load(String)", e);
        }
        assertEquals(stage.getClass(), loaded.getClass());
        assertSameParams(stage, loaded);
        return loaded;
    }
}
