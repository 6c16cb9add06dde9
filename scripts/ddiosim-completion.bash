# ddiosim-completion.bash - bash completion for ddiosim (installed as
# share/bash-completion/completions/ddiosim; or `source` this file).
#
# Nothing is listed here twice: the subcommands come from `ddiosim --help`,
# each one's options from `ddiosim CMD --help`, the machine and workload
# names from `ddiosim config list`, the help topics from `ddiosim help`, so a
# new option or machine file completes without editing this file.

# The options of one command ("trace stats" included), from its help.
_ddiosim_options()
{
    "$1" $2 --help 2>/dev/null | grep -oE '(^|[ ,])--?[a-zA-Z][a-zA-Z0-9-]*' | sed 's/^[ ,]//' | sort -u
}

_ddiosim()
{
    local cur prev bin cmd i
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    bin=${COMP_WORDS[0]}
    cmd=
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
            -*) ;;
            *) cmd=${COMP_WORDS[i]}; break ;;
        esac
    done
    if [[ -z $cmd ]]; then
        local cmds
        cmds=$("$bin" --help 2>/dev/null | awk '/^commands:/ {on = 1; next} on && /^  [a-z]/ {print $1} on && /^$/ {on = 0}')
        COMPREPLY=($(compgen -W "$cmds --help --version" -- "$cur"))
        return
    fi
    # A subcommand's own subcommand: trace stats|gen, config show|list, help TOPIC.
    if [[ $prev == "$cmd" ]]; then
        case $cmd in
            trace) COMPREPLY=($(compgen -W "stats gen" -- "$cur")); return ;;
            config) COMPREPLY=($(compgen -W "show list" -- "$cur")); return ;;
            help)
                COMPREPLY=($(compgen -W "$("$bin" help 2>/dev/null | awk '/^  [a-z]/ {print $1}')" -- "$cur"))
                return ;;
        esac
    fi
    case $prev in
        --machine|--workload)
            local kind=machines
            [[ $prev == --workload ]] && kind=workloads
            COMPREPLY=($(compgen -W "$("$bin" config list 2>/dev/null | awk -v k="$kind" '$1 == k {for (i = 2; i <= NF; i++) {sub(",", "", $i); print $i}}')" -- "$cur"))
            compopt -o filenames 2>/dev/null
            COMPREPLY+=($(compgen -f -X '!*.json' -- "$cur") $(compgen -d -- "$cur"))
            return ;;
        --engine) COMPREPLY=($(compgen -W "sim model both" -- "$cur")); return ;;
        --format) COMPREPLY=($(compgen -W "table json csv jsonl" -- "$cur")); return ;;
        --profile) COMPREPLY=($(compgen -W "mawi imix fixed:64 fixed:1500" -- "$cur")); return ;;
        --mapping) COMPREPLY=($(compgen -W "modulo xor random skx18" -- "$cur")); return ;;
        -o|--output|--trace|--spec|--measured|--overlay|--timeline|--plot|--script|--din|--set-file)
            compopt -o filenames 2>/dev/null
            COMPREPLY=($(compgen -f -- "$cur"))
            return ;;
    esac
    local sub=$cmd
    if [[ $cmd == trace || $cmd == config ]]; then
        for ((i = i + 1; i < COMP_CWORD; i++)); do
            [[ ${COMP_WORDS[i]} != -* ]] && { sub="$cmd ${COMP_WORDS[i]}"; break; }
        done
    fi
    COMPREPLY=($(compgen -W "$(_ddiosim_options "$bin" "$sub")" -- "$cur"))
}

complete -F _ddiosim ddiosim
