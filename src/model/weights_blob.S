/* weights_blob.S: links the weights file into the binary for `make static` (a copied binary runs
 * with nothing beside it). Not part of the default build; hx_model_open_default (model.c) finds
 * the two symbols. HX_WEIGHTS_PATH is the file's path, given by the Makefile. */
    .section .rodata.hxi_weights, "a"
    .balign 64
    .globl hxi_weights_blob
hxi_weights_blob:
    .incbin HX_WEIGHTS_PATH
    .globl hxi_weights_blob_end
hxi_weights_blob_end:
    .section .note.GNU-stack, "", @progbits
