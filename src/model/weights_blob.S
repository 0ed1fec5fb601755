/* weights_blob.S: links the weights file into the binary for `make static` (a copied binary runs
 * with nothing beside it). Not part of the default build; hx_model_open_default (model.c) finds
 * the two symbols. HX_WEIGHTS_PATH is the file's path, given by the Makefile. */
    .section .rodata.hx_weights, "a"
    .balign 64
    .globl hx_weights_blob
hx_weights_blob:
    .incbin HX_WEIGHTS_PATH
    .globl hx_weights_blob_end
hx_weights_blob_end:
    .section .note.GNU-stack, "", @progbits
