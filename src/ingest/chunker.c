/* chunker.c: document -> chunks, as specified in chunker.h. Works in two passes: first the text
 * is cut into small "units" (sentences, lines, YAML blocks, code blocks) that each fit the
 * budget, tagged with their section; then units are packed greedily into chunks per section with
 * a sentence overlap. (An extractor's units, doctype.h, are called xunits here: each starts a
 * section of its own.) Token counts come from the model's own tokenizer; the final count of every
 * chunk is measured again on its exact text, so the budget holds even where counts don't add up. */
#include "chunker.h"
#include "ingest.h"
#include "alloc.h"
#include "model.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEADING_DEPTH 6
#define HEADER_SHARE 4   /* a header may take at most 1/HEADER_SHARE of the budget */

typedef struct {
    uint32_t start, end;     /* trimmed byte range in the document */
    uint32_t tokens;
    uint32_t section;
} unit;

typedef struct {
    char *heading;           /* "A > B"; owned */
    char *header;            /* title + heading path, as prepended to each chunk; owned */
    uint32_t budget;         /* body tokens allowed in this section's chunks */
    uint32_t unit;           /* the extractor's unit (xunit) its text belongs to (0: none) */
} section;

typedef struct {
    const hxi_tokenizer *tok;
    const char *title, *text;
    size_t len;
    int limit;               /* tokens allowed for header + body (max_tokens - 2) */
    unit *units;
    size_t n_units, cap_units;
    section *sections;
    size_t n_sections, cap_sections;
    int error;
} chunker;

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static bool is_continuation(char ch)
{
    return ((unsigned char)ch & 0xC0) == 0x80;
}

static uint32_t count_tokens(const chunker *c, const char *s, size_t n)
{
    return (uint32_t)hxi_tokenize(c->tok, s, n, NULL, NULL, 0);
}

/* === Sections and headers === */

static bool is_lower(char ch) { return ch >= 'a' && ch <= 'z'; }
static bool is_upper(char ch) { return ch >= 'A' && ch <= 'Z'; }
static bool is_digit(char ch) { return ch >= '0' && ch <= '9'; }

/* Writes the words of identifier s[0..n) to out (room for 2 * n + 1 bytes) and returns how many
 * there are; 0 when s is not an identifier (anything but ASCII letters, digits, '_', '-', '.').
 * Words break at '_', '-' and '.', at a lower-to-upper case change (hsvToRgb), before the last
 * capital of a capital run followed by a lower-case letter (HTTPServer) and after digits followed
 * by a letter (b32encode: "b32 encode"), as the embedding model reads words, not identifiers. */
static int ident_words(const char *s, size_t n, char *out)
{
    size_t k = 0;
    int words = 0;
    bool open = false;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        if (ch == '_' || ch == '-' || ch == '.') {
            open = false;
            continue;
        }
        if (!is_lower(ch) && !is_upper(ch) && !is_digit(ch))
            return 0;
        bool brk = open && ((is_upper(ch) && is_lower(s[i - 1])) ||
                            (is_upper(ch) && is_upper(s[i - 1]) && i + 1 < n && is_lower(s[i + 1])) ||
                            (!is_digit(ch) && is_digit(s[i - 1])));
        if (!open || brk) {
            if (words)
                out[k++] = ' ';
            words++;
        }
        out[k++] = ch;
        open = true;
    }
    out[k] = 0;
    return words;
}

const char *hxi_heading_last(const char *h, size_t hl)
{
    const char *last = h;
    for (const char *p = h; p + 3 <= h + hl; p++)
        if (!memcmp(p, " > ", 3))
            last = p + 3;
    return last;
}

/* The last part of heading path h when it has more than one part, else NULL. */
static const char *last_heading(const char *h)
{
    const char *last = hxi_heading_last(h, strlen(h));
    return last == h ? NULL : last;
}

/* The header for a heading path: "title > h1 > h2", leaving out a first heading equal to the
 * title; shortened to the last heading, then cut, when it would take too much of the budget. An
 * extractor's unit named by an identifier (a code definition) adds the identifier's words:
 * "colorsys.py > rgb_to_hsv (rgb to hsv)". */
static int add_section(chunker *c, const char *heading, uint32_t xunit, hx_error *err)
{
    if (hx_grow((void **)&c->sections, &c->cap_sections, c->n_sections + 1, sizeof *c->sections, NULL))
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory chunking");
    section *s = &c->sections[c->n_sections];
    size_t tlen = strlen(c->title), hlen = strlen(heading);
    s->heading = hx_strdup(heading);
    s->header = hx_malloc(tlen + 3 * hlen + 8);
    if (!s->heading || !s->header) {
        free(s->heading);
        free(s->header);
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory chunking");
    }
    const char *path = heading;
    if (!strncmp(path, c->title, tlen) && (path[tlen] == 0 || !strncmp(path + tlen, " > ", 3)))
        path += tlen + (path[tlen] ? 3 : 0);    /* the first heading repeats the title */
    if (*path)
        sprintf(s->header, "%s > %s", c->title, path);
    else
        strcpy(s->header, c->title);
    const char *name = last_heading(heading);   /* a unit under the file's name alone has none */
    size_t hdr = strlen(s->header);
    if (xunit && name && ident_words(name, strlen(name), s->header + hdr + 2) > 1) {
        memcpy(s->header + hdr, " (", 2);
        strcat(s->header + hdr, ")");
    }
    uint32_t cap = (uint32_t)c->limit / HEADER_SHARE, n = count_tokens(c, s->header, strlen(s->header));
    if (n > cap) {
        const char *last = last_heading(heading);
        strcpy(s->header, last ? last : heading);
        n = count_tokens(c, s->header, strlen(s->header));
    }
    if (n > cap) {
        size_t hl = strlen(s->header);
        uint32_t *spans = hx_malloc(sizeof *spans * 2 * (cap + 1));
        int32_t *ids = hx_malloc(sizeof *ids * (cap + 1));
        if (!spans || !ids) {
            free(spans);
            free(ids);
            free(s->heading);
            free(s->header);
            return hx_error_set(err, HX_ENOMEM, -1, "out of memory chunking");
        }
        hxi_tokenize_head(c->tok, s->header, hl, ids, spans, cap + 1);
        s->header[spans[2 * cap]] = 0;          /* cut before the first piece past the cap */
        free(spans);
        free(ids);
        n = count_tokens(c, s->header, strlen(s->header));
    }
    s->budget = (uint32_t)c->limit - n;
    s->unit = xunit;
    c->n_sections++;
    return 0;
}

/* === Units === */

static int push_unit(chunker *c, size_t start, size_t end, uint32_t tokens)
{
    if (hx_grow((void **)&c->units, &c->cap_units, c->n_units + 1, sizeof *c->units, NULL))
        return c->error = HX_ENOMEM;
    c->units[c->n_units++] = (unit){(uint32_t)start, (uint32_t)end, tokens, (uint32_t)(c->n_sections - 1)};
    return 0;
}

static int add_unit(chunker *c, size_t start, size_t end);

/* Splits [start, end) at every occurrence of `sep` ('\n' for lines, ' ' for words), packing the
 * pieces greedily so each part fits the section budget. */
static int split_at(chunker *c, size_t start, size_t end, char sep)
{
    uint32_t budget = c->sections[c->n_sections - 1].budget;
    size_t part = start, pos = start;
    uint32_t sum = 0;
    while (pos < end) {
        size_t stop = pos;
        while (stop < end && c->text[stop] != sep)
            stop++;
        uint32_t t = count_tokens(c, c->text + pos, stop - pos);
        if (sum && sum + t > budget) {
            if (add_unit(c, part, pos))
                return c->error;
            part = pos;
            sum = 0;
        }
        sum += t;
        pos = stop < end ? stop + 1 : end;
    }
    return add_unit(c, part, end);
}

/* A run without spaces longer than the budget (punctuation, CJK without spaces): cut into parts
 * of at most `budget` pieces, each cut at the start of the source word of the first piece that
 * does not fit. Each pass reads only the part it cuts off, so the time is linear in the run's
 * length however long it is. A first word of more pieces than the budget is cut in half on a
 * code point boundary and its halves are added on their own. */
static int split_word(chunker *c, size_t start, size_t end, uint32_t budget)
{
    uint32_t *spans = hx_malloc(sizeof *spans * 2 * (budget + 1));
    int32_t *ids = hx_malloc(sizeof *ids * (budget + 1));
    if (!spans || !ids) {
        free(spans);
        free(ids);
        return c->error = HX_ENOMEM;
    }
    while (start < end && !c->error) {
        const char *s = c->text + start;
        size_t n = hxi_tokenize_head(c->tok, s, end - start, ids, spans, budget + 1);
        if (n <= budget) {      /* the rest fits */
            push_unit(c, start, end, (uint32_t)n);
            break;
        }
        size_t cut = spans[2 * budget];
        if (cut == 0) {         /* the first word alone is over the budget, so it has >= 2 code points */
            cut = spans[1] / 2;
            while (cut > 0 && is_continuation(s[cut]))
                cut--;
            if (cut == 0)       /* halfway is inside the first code point: cut after it */
                do
                    cut++;
                while (is_continuation(s[cut]));
        }
        add_unit(c, start, start + cut);
        start += cut;
    }
    free(spans);
    free(ids);
    return c->error;
}

/* Adds [start, end) trimmed, splitting it by lines, then words, then pieces when too long. */
static int add_unit(chunker *c, size_t start, size_t end)
{
    while (start < end && is_space(c->text[start]))
        start++;
    while (end > start && is_space(c->text[end - 1]))
        end--;
    if (start == end || c->error)
        return c->error;
    uint32_t budget = c->sections[c->n_sections - 1].budget;
    uint32_t t = count_tokens(c, c->text + start, end - start);
    if (t <= budget)
        return push_unit(c, start, end, t);
    if (memchr(c->text + start, '\n', end - start))
        return split_at(c, start, end, '\n');
    for (size_t i = start; i < end; i++)
        if (is_space(c->text[i]))
            return split_at(c, start, end, ' ');
    return split_word(c, start, end, budget);
}

/* Sentences of a prose paragraph: cut after . ! ? followed by whitespace. */
static int add_sentences(chunker *c, size_t start, size_t end)
{
    size_t s = start;
    for (size_t i = start; i + 1 < end; i++) {
        char ch = c->text[i];
        if ((ch == '.' || ch == '!' || ch == '?') && is_space(c->text[i + 1])) {
            if (add_unit(c, s, i + 1))
                return c->error;
            s = i + 1;
        }
    }
    return add_unit(c, s, end);
}

/* === Per-type scanners === */

typedef struct {
    size_t start, end, next;   /* line [start, end) without its newline; next line starts at next */
} line;

static bool next_line(const chunker *c, size_t pos, line *l)
{
    if (pos >= c->len)
        return false;
    const char *nl = memchr(c->text + pos, '\n', c->len - pos);
    l->start = pos;
    l->end = nl ? (size_t)(nl - c->text) : c->len;
    l->next = nl ? l->end + 1 : c->len;
    return true;
}

static bool is_blank(const chunker *c, const line *l)
{
    for (size_t i = l->start; i < l->end; i++)
        if (!is_space(c->text[i]))
            return false;
    return true;
}

static bool is_fence(const chunker *c, const line *l)
{
    size_t i = l->start;
    while (i < l->end && c->text[i] == ' ')
        i++;
    return l->end - i >= 3 && (!memcmp(c->text + i, "```", 3) || !memcmp(c->text + i, "~~~", 3));
}

/* ATX heading level (1..6) of a line, 0 if it is not one; its words go to text and tlen. */
static int heading_level(const chunker *c, const line *l, const char **text, size_t *tlen)
{
    size_t i = l->start, h = 0;
    while (i + h < l->end && c->text[i + h] == '#')
        h++;
    if (h == 0 || h > HEADING_DEPTH || (i + h < l->end && c->text[i + h] != ' '))
        return 0;
    size_t s = i + h, e = l->end;
    while (s < e && is_space(c->text[s]))
        s++;
    while (e > s && (is_space(c->text[e - 1]) || c->text[e - 1] == '#'))
        e--;
    *text = c->text + s;
    *tlen = e - s;
    return (int)h;
}

/* YAML front matter at the start of a Markdown text ("---" line ... "---" or "..." line): its
 * lines are [*from, *to); returns where the body starts after it, 0 when there is none. */
static size_t front_matter(const chunker *c, size_t *from, size_t *to)
{
    line l;
    if (!next_line(c, 0, &l) || l.end - l.start < 3 || memcmp(c->text, "---", 3) ||
        (l.end - l.start > 3 && !(l.end - l.start == 4 && c->text[3] == '\r')))
        return 0;
    *from = l.next;
    for (size_t pos = l.next; next_line(c, pos, &l); pos = l.next) {
        size_t n = l.end - l.start;
        if (n && c->text[l.end - 1] == '\r')
            n--;
        if (n == 3 && (!memcmp(c->text + l.start, "---", 3) || !memcmp(c->text + l.start, "...", 3))) {
            *to = l.start;
            return l.next;
        }
    }
    return 0;
}

/* YAML lines [from, to) (to at a line start): a top-level key starts a unit that runs to the next
 * top-level key. */
static void add_yaml_units(chunker *c, size_t from, size_t to)
{
    size_t block = from, pos = from;
    line l;
    while (!c->error && pos < to && next_line(c, pos, &l)) {
        pos = l.next;
        char ch = l.start < l.end ? c->text[l.start] : ' ';
        bool top_key = !is_space(ch) && ch != '-' && ch != '#' && ch != '}' && ch != ']';
        if (top_key && l.start > block) {
            add_unit(c, block, l.start);
            block = l.start;
        }
    }
    add_unit(c, block, to);
}

static int scan_markdown(chunker *c, hx_error *err)
{
    struct { int level; const char *s; size_t n; } stack[HEADING_DEPTH];
    int depth = 0;
    bool fenced = false;
    size_t para = SIZE_MAX, para_end = 0, fm_from = 0, fm_to = 0, pos = front_matter(c, &fm_from, &fm_to);
    line l;
    int rc = add_section(c, "", 0, err);
    if (!rc && pos)
        add_yaml_units(c, fm_from, fm_to);   /* front matter is text too, besides metadata */
    while (!rc && next_line(c, pos, &l)) {
        pos = l.next;
        const char *htext;
        size_t hlen;
        int level = fenced ? 0 : heading_level(c, &l, &htext, &hlen);
        if (is_fence(c, &l))
            fenced = !fenced;
        if (level || (!fenced && is_blank(c, &l))) {
            if (para != SIZE_MAX && add_sentences(c, para, para_end))
                break;
            para = SIZE_MAX;
        } else {
            if (para == SIZE_MAX)
                para = l.start;
            para_end = l.end;
        }
        if (!level)
            continue;
        while (depth > 0 && stack[depth - 1].level >= level)
            depth--;
        size_t keep = hlen;   /* a long heading would be copied into every chunk below it */
        if (keep > HX_LABEL_MAX) {
            keep = HX_LABEL_MAX;
            while (keep > 0 && is_continuation(htext[keep]))
                keep--;
        }
        stack[depth].level = level;
        stack[depth].s = htext;
        stack[depth].n = keep;
        depth++;
        size_t total = 0;
        for (int i = 0; i < depth; i++)
            total += stack[i].n + 3;
        char *path = hx_malloc(total + 1), *p = path;
        if (!path)
            return hx_error_set(err, HX_ENOMEM, -1, "out of memory chunking");
        for (int i = 0; i < depth; i++) {
            if (i) {
                memcpy(p, " > ", 3);
                p += 3;
            }
            memcpy(p, stack[i].s, stack[i].n);
            p += stack[i].n;
        }
        *p = 0;
        rc = add_section(c, path, 0, err);
        free(path);
        if (!rc)   /* the heading's words are text of its section, not only of its header */
            add_unit(c, (size_t)(htext - c->text), (size_t)(htext - c->text) + hlen);
    }
    if (!rc && para != SIZE_MAX)
        add_sentences(c, para, para_end);
    return rc;
}

/* Blocks separated by blank lines (code, JSON) or paragraphs split into sentences (text). */
static int scan_blocks(chunker *c, bool prose, hx_error *err)
{
    size_t block = SIZE_MAX, block_end = 0, pos = 0;
    line l;
    int rc = add_section(c, "", 0, err);
    while (!rc && !c->error && next_line(c, pos, &l)) {
        pos = l.next;
        if (!is_blank(c, &l)) {
            if (block == SIZE_MAX)
                block = l.start;
            block_end = l.end;
            continue;
        }
        if (block != SIZE_MAX)
            prose ? add_sentences(c, block, block_end) : add_unit(c, block, block_end);
        block = SIZE_MAX;
    }
    if (!rc && block != SIZE_MAX)
        prose ? add_sentences(c, block, block_end) : add_unit(c, block, block_end);
    return rc;
}

/* The extractor's blocks (doctype.h): a section per heading path and unit (so no chunk holds text
 * of two units), prose blocks by sentences, verbatim and heading blocks whole (split at lines when
 * too long). */
static int scan_extracted(chunker *c, const hxi_block *b, size_t n, char *const *headings, size_t n_headings,
                          size_t n_xunits, hx_error *err)
{
    uint32_t current = UINT32_MAX, current_unit = 0;
    int rc = 0;
    for (size_t i = 0; i < n && !rc && !c->error; i++) {
        if (b[i].end > c->len || b[i].start > b[i].end)
            continue;
        uint32_t h = b[i].heading < n_headings ? b[i].heading : 0, u = b[i].unit < n_xunits ? b[i].unit : 0;
        if ((h != current || u != current_unit) && (rc = add_section(c, headings[h], u, err)))
            break;
        current = h;
        current_unit = u;
        if (b[i].kind == HX_BLOCK_PROSE)
            add_sentences(c, b[i].start, b[i].end);
        else
            add_unit(c, b[i].start, b[i].end);
    }
    if (!rc && current == UINT32_MAX)
        rc = add_section(c, "", 0, err);
    return rc;
}

static int scan_yaml(chunker *c, hx_error *err)
{
    int rc = add_section(c, "", 0, err);
    if (!rc)
        add_yaml_units(c, 0, c->len);
    return rc;
}

/* === Packing === */

static uint32_t line_of(const uint32_t *starts, size_t n_lines, uint32_t off)
{
    size_t lo = 0, hi = n_lines;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (starts[mid] <= off)
            lo = mid;
        else
            hi = mid;
    }
    return (uint32_t)lo + 1;
}

/* Whether body b[0..bl) begins with the words of header h (white space runs match white space
 * runs; the header's last word ends where a body word ends), so that embedding both would read
 * the same words twice. */
static bool body_repeats(const char *h, const char *b, size_t bl)
{
    size_t j = 0;
    if (!*h)
        return false;
    for (const char *p = h; *p;) {
        if (is_space(*p)) {
            while (is_space(*p))
                p++;
            if (j == bl || !is_space(b[j]))
                return false;
            while (j < bl && is_space(b[j]))
                j++;
        } else if (j < bl && b[j] == *p) {
            p++;
            j++;
        } else {
            return false;
        }
    }
    unsigned char next = j < bl ? (unsigned char)b[j] : ' ';
    return !(next >= 0x80 || is_lower((char)next) || is_upper((char)next) || is_digit((char)next) || next == '_');
}

typedef struct {
    hxi_chunk *v;
    size_t n, cap;
    uint32_t *line_starts;
    size_t n_lines;
} chunk_list;

/* Builds the chunk for units [i, j) and returns its exact token count (incl. [CLS]/[SEP]). */
static int make_chunk(chunker *c, chunk_list *out, size_t i, size_t j, hxi_chunk *ch)
{
    const section *s = &c->sections[c->units[i].section];
    uint32_t bs = c->units[i].start, be = c->units[j - 1].end;
    size_t hl = strlen(s->header), bl = be - bs;
    memset(ch, 0, sizeof *ch);
    ch->text = hx_malloc(hl + 1 + bl + 1);
    ch->heading = hx_strdup(s->heading);
    if (!ch->text || !ch->heading) {
        free(ch->text);
        free(ch->heading);
        return c->error = HX_ENOMEM;
    }
    memcpy(ch->text, s->header, hl);
    ch->text[hl] = '\n';
    memcpy(ch->text + hl + 1, c->text + bs, bl);
    ch->text[hl + 1 + bl] = 0;
    ch->byte_start = bs;
    ch->byte_end = be;
    ch->body_offset = (uint32_t)hl + 1;
    ch->embed_offset = body_repeats(s->header, c->text + bs, bl) ? ch->body_offset : 0;
    ch->unit = s->unit;
    ch->line_start = line_of(out->line_starts, out->n_lines, bs);
    ch->line_end = line_of(out->line_starts, out->n_lines, be ? be - 1 : 0);
    ch->n_tokens = count_tokens(c, ch->text, hl + 1 + bl) + 2;
    return 0;
}

static int emit(chunker *c, chunk_list *out, size_t i, size_t *j)
{
    hxi_chunk ch;
    for (;;) {
        if (make_chunk(c, out, i, *j, &ch))
            return c->error;
        if (ch.n_tokens <= (uint32_t)c->limit + 2 || *j == i + 1)
            break;
        free(ch.text);           /* counts did not add up across units: give back one unit */
        free(ch.heading);
        (*j)--;
    }
    if (hx_grow((void **)&out->v, &out->cap, out->n + 1, sizeof *out->v, NULL)) {
        free(ch.text);
        free(ch.heading);
        return c->error = HX_ENOMEM;
    }
    ch.index = (uint32_t)out->n;
    out->v[out->n++] = ch;
    return 0;
}

static int pack(chunker *c, chunk_list *out, uint32_t overlap)
{
    size_t i = 0;
    while (i < c->n_units && !c->error) {
        uint32_t sec = c->units[i].section, budget = c->sections[sec].budget;
        size_t end = i;
        while (end < c->n_units && c->units[end].section == sec)
            end++;
        while (i < end) {
            size_t j = i;
            uint32_t sum = 0;
            while (j < end && (j == i || sum + c->units[j].tokens <= budget))
                sum += c->units[j++].tokens;
            if (emit(c, out, i, &j))
                return c->error;
            if (j >= end)
                break;
            /* next chunk: back up over whole units worth at most `overlap` tokens, keeping
             * room for unit j and always moving forward */
            size_t k = j;
            uint32_t ov = 0;
            while (k - 1 > i && ov + c->units[k - 1].tokens <= overlap &&
                   ov + c->units[k - 1].tokens + c->units[j].tokens <= budget)
                ov += c->units[--k].tokens;
            i = k;
        }
        i = end;
    }
    return c->error;
}

/* === Entry point === */

void hxi_chunks_free(hxi_chunk *chunks, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(chunks[i].text);
        free(chunks[i].heading);
    }
    free(chunks);
}

/* Source lines or pages of each chunk from the blocks it covers: the first and last of the
 * blocks overlapping its body. */
static void map_sources(hxi_chunk *v, size_t n, const hxi_block *b, size_t nb)
{
    for (size_t i = 0; i < n; i++) {
        size_t k = 0, hi = nb;   /* the first block ending after the body's start (ends ascend) */
        while (k < hi) {
            size_t mid = (k + hi) / 2;
            if (b[mid].end <= v[i].byte_start)
                k = mid + 1;
            else
                hi = mid;
        }
        uint32_t first = 0, last = 0;
        for (size_t j = k; j < nb && b[j].start < v[i].byte_end; j++) {
            if (b[j].src_first && (!first || b[j].src_first < first))
                first = b[j].src_first;
            if (b[j].src_last > last)
                last = b[j].src_last;
        }
        if (first) {
            v[i].line_start = first;
            v[i].line_end = last;
        }
    }
}

static int chunk(const hxi_tokenizer *tok, const char *title, hxi_chunk_style style, const char *text, size_t len,
                 const hxi_block *blocks, size_t n_blocks, char *const *headings, size_t n_headings, size_t n_xunits,
                 const hxi_chunk_opts *opts, hxi_chunk **out, size_t *n_out, hx_error *err)
{
    bool by_blocks = (style == HX_CHUNK_BLOCKS || n_xunits) && n_blocks;
    int max_tokens = opts && opts->max_tokens ? opts->max_tokens : HX_MAX_SEQ_TOKENS;
    int overlap = opts ? opts->overlap_tokens : HX_CHUNK_DEFAULT_OVERLAP;
    *out = NULL;
    *n_out = 0;
    if (overlap < 0)
        overlap = HX_CHUNK_DEFAULT_OVERLAP;
    if (max_tokens < HX_CHUNK_MIN_TOKENS || max_tokens > HX_MODEL_MAX_SEQ)
        return hx_error_set(err, HX_EINVAL, -1, "chunk budget %d is outside %d..%d", max_tokens, HX_CHUNK_MIN_TOKENS,
                            HX_MODEL_MAX_SEQ);
    if (len >= UINT32_MAX)
        return hx_error_set(err, HX_ERANGE, -1, "document of %zu bytes is too large to chunk", len);
    chunker c = {.tok = tok, .title = title, .text = text, .len = len, .limit = max_tokens - 2};
    chunk_list list = {0};
    int rc;
    if (by_blocks)
        rc = scan_extracted(&c, blocks, n_blocks, headings, n_headings, n_xunits, err);
    else if (style == HX_CHUNK_MARKDOWN)
        rc = scan_markdown(&c, err);
    else if (style == HX_CHUNK_YAML)
        rc = scan_yaml(&c, err);
    else
        rc = scan_blocks(&c, style != HX_CHUNK_CODE, err);
    if (!rc && c.error)
        rc = hx_error_set(err, c.error, -1, "out of memory chunking");
    if (!rc) {
        for (size_t i = 0; i < len; i++)
            list.n_lines += text[i] == '\n';
        list.line_starts = hx_malloc(sizeof *list.line_starts * (list.n_lines + 1));
        if (!list.line_starts) {
            rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory chunking");
        } else {
            size_t k = 0;
            list.line_starts[k++] = 0;
            for (size_t i = 0; i < len; i++)
                if (text[i] == '\n')
                    list.line_starts[k++] = (uint32_t)i + 1;
            list.n_lines = k;
            if (pack(&c, &list, (uint32_t)overlap))
                rc = hx_error_set(err, c.error, -1, "out of memory chunking");
        }
    }
    for (size_t i = 0; i < c.n_sections; i++) {
        free(c.sections[i].heading);
        free(c.sections[i].header);
    }
    free(c.sections);
    free(c.units);
    free(list.line_starts);
    if (rc) {
        hxi_chunks_free(list.v, list.n);
        return rc;
    }
    if (by_blocks)
        map_sources(list.v, list.n, blocks, n_blocks);
    *out = list.v;
    *n_out = list.n;
    return 0;
}

hxi_chunk_opts hxi_chunk_opts_for(const hx_model *m)
{
    return (hxi_chunk_opts){m->cfg.max_seq < HX_CHUNK_MIN_TOKENS ? HX_CHUNK_MIN_TOKENS : m->cfg.max_seq, -1};
}

int hxi_chunk_document(const hxi_tokenizer *tok, const char *title, const char *type, const char *text,
                       size_t len, const hxi_chunk_opts *opts, hxi_chunk **out, size_t *n_out, hx_error *err)
{
    const hxi_doctype *dt = hxi_doctype_find(type, strlen(type));
    return chunk(tok, title, dt ? dt->chunk : HX_CHUNK_PROSE, text, len, NULL, 0, NULL, 0, 0, opts, out, n_out, err);
}

int hxi_chunk_source(const hxi_tokenizer *tok, const hxi_doc_source *d, const hxi_chunk_opts *opts, hxi_chunk **out,
                     size_t *n_out, hx_error *err)
{
    const hxi_doctype *dt = d->dt ? d->dt : hxi_doctype_find(d->type, strlen(d->type));
    return chunk(tok, d->title, dt ? dt->chunk : HX_CHUNK_PROSE, d->text, d->text_len, d->blocks, d->n_blocks,
                 d->headings, d->n_headings, d->n_units, opts, out, n_out, err);
}
