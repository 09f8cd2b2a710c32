# bash completion for parity: commands, each command's options, fixture
# files, and, from the fixture already on the line, its environment names
# (after -e/--env), example ids (parity decide) and the shard files to join
# (parity merge). The words come from
# parity itself (parity __complete), so they follow the option table and
# the fixture loader. Installed as share/bash-completion/completions/parity.
_parity()
{
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    local prog=${COMP_WORDS[0]} cmd="" fixture="" w i
    for ((i = 1; i < COMP_CWORD; i++)); do
        w=${COMP_WORDS[i]}
        case $w in
            -*) continue ;;
        esac
        if [[ -z $cmd ]]; then
            cmd=$w
            [[ $w == *.yaml || $w == *.yml ]] && fixture=$w
        elif [[ -z $fixture && ( $w == *.yaml || $w == *.yml ) ]]; then
            fixture=$w
        fi
    done
    COMPREPLY=()
    local IFS=$'\n'
    case $prev in
        -e | --env)
            [[ -n $fixture ]] && COMPREPLY=($(compgen -W "$("$prog" __complete envs "$fixture" 2>/dev/null)" -- "$cur"))
            return ;;
        -f | --format) COMPREPLY=($(compgen -W $'text\njson\ntap' -- "$cur")); return ;;
        -d | --decision) COMPREPLY=($(compgen -W $'accept\ndefect\nunsupported\nneeds-rule\nflag\nclear' -- "$cur")); return ;;
        --color) COMPREPLY=($(compgen -W $'auto\nalways\nnever' -- "$cur")); return ;;
        --theme) COMPREPLY=($(compgen -W $'default\nlight\nhigh-contrast\nmono' -- "$cur")); return ;;
        -o | --output | --results | --executor | --python | --backend-lib)
            COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --endpoint)
            COMPREPLY=($(compgen -W $'single\nbatch:\ntrain-step:' -- "$cur"))
            [[ ${COMPREPLY[0]} == *: ]] && compopt -o nospace 2>/dev/null
            return ;;
        -n | --note | -r | --reviewer | --backend-module | --compile-backend | --max-size | --shard | --budget | --max-examples | \
            --warmup | --iters | --min-time) return ;;
    esac
    if [[ -z $cmd ]]; then
        COMPREPLY=($(compgen -W "$("$prog" __complete commands 2>/dev/null)" -- "$cur"))
        [[ $cur == -* ]] && COMPREPLY+=($(compgen -W $'--help\n--version' -- "$cur"))
        return
    fi
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$("$prog" __complete options "$cmd" 2>/dev/null)" -- "$cur"))
        return
    fi
    if [[ -z $fixture ]]; then
        COMPREPLY=($(compgen -f -X '!*.y*ml' -- "$cur") $(compgen -d -S / -- "$cur"))
        compopt -o nospace 2>/dev/null
        return
    fi
    if [[ $cmd == decide ]]; then
        COMPREPLY=($(compgen -W "$("$prog" __complete ids "$fixture" 2>/dev/null)" -- "$cur"))
    elif [[ $cmd == merge ]]; then
        # the shard files (parity run --shard I/N -o FILE)
        COMPREPLY=($(compgen -f -X '!*.y*ml' -- "$cur") $(compgen -d -S / -- "$cur"))
        compopt -o nospace 2>/dev/null
    fi
}
complete -F _parity parity
