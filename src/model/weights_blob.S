/* weights_blob.S: links weights files into the binary for `make static` (a copied binary runs
 * with nothing beside it). Not part of the default build; catalog.c finds the symbols of each
 * model (hxi_weights_<alias>, _end; weak there, so a model not linked in is simply absent).
 * HX_WEIGHTS_PATH is the default model's file, HX_MPNET_PATH (`make static MODEL=mpnet`)
 * all-mpnet-base-v2's, given by the Makefile. */
    .section .rodata.hxi_weights, "a"
    .balign 64
    .globl hxi_weights_minilm
hxi_weights_minilm:
    .incbin HX_WEIGHTS_PATH
    .globl hxi_weights_minilm_end
hxi_weights_minilm_end:
#ifdef HX_MPNET_PATH
    .balign 64
    .globl hxi_weights_mpnet
hxi_weights_mpnet:
    .incbin HX_MPNET_PATH
    .globl hxi_weights_mpnet_end
hxi_weights_mpnet_end:
#endif
    .section .note.GNU-stack, "", @progbits
