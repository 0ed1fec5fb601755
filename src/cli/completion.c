/* completion.c: `hyrax completion bash|zsh|fish`, shell completion scripts generated from the
 * command table (main.c) and the option table (options.c), so they list every command and option
 * there is and no other: its help text and run function. */
#include "cli.h"

#include <string.h>

const char completion_about[] =
    "Prints a completion script for SHELL (bash, zsh or fish) made from the command and option\n"
    "tables: commands, each command's options, the values of options that take one of a set, and\n"
    "file names where a file or folder is wanted. Load it with\n"
    "  bash: source <(hyrax completion bash)     (or save it in ~/.local/share/bash-completion/completions/hyrax)\n"
    "  zsh:  hyrax completion zsh > \"${fpath[1]}/_hyrax\"\n"
    "  fish: hyrax completion fish > ~/.config/fish/completions/hyrax.fish\n";

/* Whether option o is shown for command c (listed in its help). */
static bool listed(const cli_opt *o, const cli_cmd *c)
{
    return (o->cmds & c->bit) && o->help;
}

/* Whether a value named v is a path on disk (FILE, DIR, ...). */
static bool wants_path(const char *v)
{
    return v && (!strcmp(v, "FILE") || !strcmp(v, "DIR") || !strcmp(v, "PATH"));
}

/* The first line of s (an option's help, a command's summary), with the characters quote_chars
 * names escaped by a backslash and single quotes as the shell's '\''-style sequence `squote`. */
static void put_quoted(FILE *f, const char *s, const char *quote_chars, const char *squote)
{
    for (const char *h = s; *h && *h != '\n'; h++)
        if (*h == '\'')
            fputs(squote, f);
        else if (strchr(quote_chars, *h))
            fprintf(f, "\\%c", *h);
        else
            fputc(*h, f);
}

/* The names of the commands, separated by spaces. */
static void put_commands(FILE *f, const cli_cmd *c, size_t nc)
{
    for (size_t i = 0; i < nc; i++)
        fprintf(f, "%s%s", i ? " " : "", c[i].name);
}

/* What `hyrax help` takes: the commands and the topics of the manual (help.c), space-separated. */
static void put_help_names(FILE *f, const cli_cmd *c, size_t nc)
{
    put_commands(f, c, nc);
    for (size_t i = 0; i < help_n_topics; i++)
        if (!cli_command(help_topics[i].name))
            fprintf(f, " %s", help_topics[i].name);
}

/* The values command c's first operand takes (cli_operand_choice), separated by spaces. */
static void put_operand_choices(FILE *f, const cli_cmd *c)
{
    const char *v;
    for (size_t i = 0; (v = cli_operand_choice(c, i)); i++)
        fprintf(f, "%s%s", i ? " " : "", v);
}

/* The values of an option that takes one of a set, separated by spaces. */
static void put_choices(FILE *f, const cli_opt *o)
{
    for (size_t v = 0; o->choices[v]; v++)
        fprintf(f, "%s%s", v ? " " : "", o->choices[v]);
}

/* === bash === */

static void bash(FILE *f)
{
    size_t nc, no;
    const cli_cmd *c = cli_commands(&nc);
    const cli_opt *o = cli_options(&no);
    fputs("# bash completion for hyrax, made by 'hyrax completion bash'\n"
          "_hyrax() {\n"
          "    local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\" opts=\"\"\n"
          "    if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
          "        COMPREPLY=($(compgen -W \"", f);
    put_commands(f, c, nc);
    fputs(" --help --version\" -- \"$cur\"))\n"
          "        return\n"
          "    fi\n"
          "    case \"$prev\" in\n", f);
    for (size_t i = 0; i < no; i++) {
        bool first = true;   /* each option name once: its first row with choices names them */
        for (size_t k = 0; k < i; k++)
            first &= strcmp(o[k].name, o[i].name) || !o[k].choices;
        if (!o[i].choices || !first)
            continue;
        fprintf(f, "        %s)\n            COMPREPLY=($(compgen -W \"", o[i].name);
        put_choices(f, &o[i]);
        fputs("\" -- \"$cur\"))\n            return ;;\n", f);
    }
    fputs("    esac\n"
          "    case \"${COMP_WORDS[1]}\" in\n", f);
    for (size_t i = 0; i < nc; i++) {
        fprintf(f, "        %s) opts=\"", c[i].name);
        bool sep = false;
        for (size_t k = 0; k < no; k++)
            if (listed(&o[k], &c[i])) {
                if (o[k].short_name)
                    fprintf(f, "%s-%c", sep ? " " : "", o[k].short_name), sep = true;
                fprintf(f, "%s%s", sep ? " " : "", o[k].name);
                sep = true;
            }
        fputs("\" ;;\n", f);
    }
    fputs("    esac\n"
          "    case \"${COMP_WORDS[1]}\" in\n"
          "        help) [ \"$COMP_CWORD\" -eq 2 ] && COMPREPLY=($(compgen -W \"", f);
    put_help_names(f, c, nc);
    fputs("\" -- \"$cur\")) && return ;;\n"
          "        completion) [ \"$COMP_CWORD\" -eq 2 ] && COMPREPLY=($(compgen -W \"bash zsh fish\" -- \"$cur\")) && "
          "return ;;\n", f);
    for (size_t i = 0; i < nc; i++)
        if (cli_operand_choice(&c[i], 0)) {
            fprintf(f, "        %s) [ \"$COMP_CWORD\" -eq 2 ] && [[ \"$cur\" != -* ]] && COMPREPLY=($(compgen -W \"",
                    c[i].name);
            put_operand_choices(f, &c[i]);
            fputs("\" -- \"$cur\")) && return ;;\n", f);
        }
    fputs("    esac\n"
          "    if [[ \"$cur\" == -* ]]; then\n"
          "        COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
          "    fi\n"
          "}\n"
          "complete -o default -F _hyrax hyrax\n", f);
}

/* === zsh === */

static void zsh(FILE *f)
{
    size_t nc, no;
    const cli_cmd *c = cli_commands(&nc);
    const cli_opt *o = cli_options(&no);
    fputs("#compdef hyrax\n# zsh completion for hyrax, made by 'hyrax completion zsh'\n"
          "_hyrax() {\n"
          "    local -a commands\n"
          "    commands=(\n", f);
    for (size_t i = 0; i < nc; i++) {
        fprintf(f, "        '%s:", c[i].name);
        put_quoted(f, c[i].summary, ":", "'\\''");
        fputs("'\n", f);
    }
    fputs("    )\n"
          "    if (( CURRENT == 2 )); then\n"
          "        _describe 'command' commands\n"
          "        return\n"
          "    fi\n"
          "    local cmd=$words[2]\n"
          "    shift words\n"
          "    (( CURRENT-- ))\n"
          "    case $cmd in\n", f);
    for (size_t i = 0; i < nc; i++) {
        fprintf(f, "        %s)\n            _arguments", c[i].name);
        for (size_t k = 0; k < no; k++) {
            if (!listed(&o[k], &c[i]))
                continue;
            for (int form = 0; form < 2; form++) {
                if (form == 0 && !o[k].short_name)
                    continue;
                fputs(" \\\n                '", f);
                if (o[k].repeat)
                    fputc('*', f);
                if (form == 0)
                    fprintf(f, "-%c", o[k].short_name);
                else
                    fputs(o[k].name, f);
                fputc('[', f);
                put_quoted(f, o[k].help, "[]:\\", "'\\''");
                fputc(']', f);
                if (o[k].value) {
                    fprintf(f, ":%s:", o[k].value);
                    if (o[k].choices) {
                        fputc('(', f);
                        put_choices(f, &o[k]);
                        fputc(')', f);
                    } else if (wants_path(o[k].value)) {
                        fputs(!strcmp(o[k].value, "DIR") ? "_files -/" : "_files", f);
                    }
                }
                fputc('\'', f);
            }
        }
        if (c[i].bit == CMD_HELP) {
            fputs(" \\\n                '1:command or topic:(", f);
            put_help_names(f, c, nc);
            fputs(")'", f);
        } else if (c[i].bit == CMD_COMPLETION)
            fputs(" \\\n                '1:shell:(bash zsh fish)'", f);
        else if (cli_operand_choice(&c[i], 0)) {
            fputs(" \\\n                '1:value:(", f);
            put_operand_choices(f, &c[i]);
            fputs(")'", f);
        }
        else if (c[i].max_operands)
            fputs(" \\\n                '*:file:_files'", f);
        fputs(" ;;\n", f);
    }
    fputs("    esac\n"
          "}\n"
          "if [ \"$funcstack[1]\" = \"_hyrax\" ]; then\n"
          "    _hyrax \"$@\"\n"
          "else\n"
          "    compdef _hyrax hyrax\n"
          "fi\n", f);
}

/* === fish === */

static void fish(FILE *f)
{
    size_t nc, no;
    const cli_cmd *c = cli_commands(&nc);
    const cli_opt *o = cli_options(&no);
    fputs("# fish completion for hyrax, made by 'hyrax completion fish'\n"
          "complete -c hyrax -f\n", f);
    for (size_t i = 0; i < nc; i++) {
        fprintf(f, "complete -c hyrax -n __fish_use_subcommand -a %s -d '", c[i].name);
        put_quoted(f, c[i].summary, "\\", "\\'");
        fputs("'\n", f);
    }
    for (size_t i = 0; i < nc; i++)
        for (size_t k = 0; k < no; k++) {
            if (!listed(&o[k], &c[i]))
                continue;
            fprintf(f, "complete -c hyrax -n '__fish_seen_subcommand_from %s' -l %s", c[i].name, o[k].name + 2);
            if (o[k].short_name)
                fprintf(f, " -s %c", o[k].short_name);
            if (o[k].choices) {
                fputs(" -x -a '", f);
                put_choices(f, &o[k]);
                fputc('\'', f);
            } else if (o[k].value) {
                fputs(wants_path(o[k].value) ? " -r -F" : " -x", f);
            }
            fputs(" -d '", f);
            put_quoted(f, o[k].help, "\\", "\\'");
            fputs("'\n", f);
        }
    fputs("complete -c hyrax -n '__fish_seen_subcommand_from help' -a '", f);
    put_help_names(f, c, nc);
    fputs("'\n"
          "complete -c hyrax -n '__fish_seen_subcommand_from completion' -a 'bash zsh fish'\n", f);
    for (size_t i = 0; i < nc; i++)
        if (cli_operand_choice(&c[i], 0)) {
            fprintf(f, "complete -c hyrax -n '__fish_seen_subcommand_from %s' -a '", c[i].name);
            put_operand_choices(f, &c[i]);
            fputs("'\n", f);
        }
    fputs("complete -c hyrax -n '__fish_seen_subcommand_from index rm sync publish verify' -F\n", f);
}

/* === completion === */

int cmd_completion(const cli_args *a)
{
    static const char *const shells[] = {"bash", "zsh", "fish"};
    static void (*const make[])(FILE *) = {bash, zsh, fish};
    const char *sh = a->operands[0];
    for (size_t i = 0; i < 3; i++)
        if (!strcmp(sh, shells[i])) {
            make[i](stdout);
            return fflush(stdout) ? 1 : 0;
        }
    const char *near = suggest(sh, shells, 3);
    fputs("hyrax completion: no script for '", stderr);
    put_text(stderr, sh, 200, false);
    fprintf(stderr, "'%s%s%s; give bash, zsh or fish\n", near ? " (did you mean " : "", near ? near : "", near ? "?)" : "");
    return 2;
}
