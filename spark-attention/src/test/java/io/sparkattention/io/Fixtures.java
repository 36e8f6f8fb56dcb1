package io.sparkattention.io;

import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Path;
import java.util.List;

/** The PyTorch reference fixtures in test resources (see fixtures/pytorch/README.md there). */
final class Fixtures {

    /** Every fixture, by base name. */
    static final List<String> ALL = List.of(
        "mha_causal", "mha_causal_padding_long", "mha_cross_kdim_vdim", "mha_float_mask_per_head_weights",
        "mha_key_padding", "mha_no_bias", "mha_self_basic", "mha_single_head",
        "sdpa_seed_causal", "sdpa_seed_cross_long", "sdpa_seed_plain");

    private Fixtures() {
    }

    static Path path(String name) {
        URL url = Fixtures.class.getResource("/fixtures/pytorch/" + name + ".safetensors");
        if (url == null) {
            throw new IllegalStateException("missing test resource fixtures/pytorch/" + name + ".safetensors");
        }
        try {
            return Path.of(url.toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
