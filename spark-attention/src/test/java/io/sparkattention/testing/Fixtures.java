package io.sparkattention.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sparkattention.io.SafeTensors;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.nio.file.Path;
import java.nio.file.Paths;

/** The PyTorch reference fixtures in src/test/resources/fixtures/pytorch (see the README there). */
public final class Fixtures {

    /** Every fixture case. */
    public static final String[] MHA = {"mha_self_basic", "mha_causal", "mha_key_padding", "mha_cross_kdim_vdim",
        "mha_float_mask_per_head_weights", "mha_no_bias", "mha_causal_padding_long", "mha_single_head"};
    public static final String[] SDPA = {"sdpa_seed_plain", "sdpa_seed_causal", "sdpa_seed_cross_long"};

    private Fixtures() {
    }

    /**
     * The fixture as a file. Inside a jar (the test-jar other modules' tests use) a resource has no
     * path of its own, so it is copied to a temporary file first.
     */
    public static Path path(String name) {
        String resource = "/fixtures/pytorch/" + name + ".safetensors";
        URL url = Fixtures.class.getResource(resource);
        if (url == null) {
            throw new IllegalArgumentException("no fixture " + resource);
        }
        try {
            if ("file".equals(url.getProtocol())) {
                return Paths.get(url.toURI());
            }
            Path copy = Files.createTempFile(name + "-", ".safetensors");
            copy.toFile().deleteOnExit();
            try (InputStream in = url.openStream()) {
                Files.copy(in, copy, StandardCopyOption.REPLACE_EXISTING);
            }
            return copy;
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static SafeTensors open(String name) {
        try {
            return SafeTensors.read(path(name));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The case's settings ({@code __metadata__.config}). */
    public static JsonNode config(SafeTensors st) {
        try {
            return new ObjectMapper().readTree(st.metadata().get("config"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
