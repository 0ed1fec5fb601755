/* search_folder.c: hyrax as a library. Indexes a folder into an index file and answers one query
 * from it, with nothing but the public header. Build against an installed hyrax:
 *     cc -o search_folder examples/search_folder.c $(pkg-config --cflags --libs hyrax)
 *     ./search_folder ~/notes /tmp/notes.hyx "how do I rotate the signing key"
 * The weights are found as hx_model_default_path says (share/hyrax beside the installed library). */
#include <hyrax.h>

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s FOLDER INDEX_FILE QUERY\n", argv[0]);
        return 2;
    }
    const char *folder = argv[1], *db = argv[2], *query = argv[3];
    hx_error err = {0};
    hx_model *model = NULL;
    hx_encoder *enc = NULL;
    hx_index *ix = NULL;
    hx_update_report rep = {0};
    hx_results res = {0};
    int rc = 1;
    if (hx_model_open_default(&model, &err) || hx_encoder_new(&enc, model, 0, &err) ||
        hx_index_open(&ix, db, HX_INDEX_WRITE | HX_INDEX_CREATE, model, folder, &err))
        goto fail;
    const char *everything[] = {""};   /* the whole root */
    hx_update_opts opts = {.encoder = enc};
    if (hx_index_update(ix, everything, 1, &opts, &rep, &err))
        goto fail;
    printf("hyrax %s: added %zu, updated %zu, unchanged %zu documents\n", hx_version(), rep.added, rep.updated,
           rep.unchanged);
    hx_search_opts so;
    hx_search_opts_default(&so);
    so.k = 3;
    if (hx_index_search(ix, enc, query, strlen(query), &so, &res, &err))
        goto fail;
    for (size_t i = 0; i < res.n; i++)
        printf("%u. %s:%u-%u (%.3f) %.*s\n", res.v[i].rank, res.v[i].path, res.v[i].line_start, res.v[i].line_end,
               (double)res.v[i].score, (int)(res.v[i].text_len < 60 ? res.v[i].text_len : 60), res.v[i].text);
    rc = res.n ? 0 : 1;
    goto done;
fail:
    fprintf(stderr, "search_folder: %s (%s)\n", err.message, hx_strerror(err.code));
done:
    hx_results_free(&res);
    hx_update_report_clear(&rep);
    hx_index_close(ix);
    hx_encoder_free(enc);
    hx_model_close(model);
    return rc;
}
