# bash completion for numastatctl(1)                       -*- shell-script -*-
# SPDX-License-Identifier: LGPL-2.1-or-later
# This file is part of numastatd.
#
# Works with and without the bash-completion package: it reads COMP_WORDS and
# COMP_CWORD itself, and copes with "--opt=value" whether or not '=' is in
# COMP_WORDBREAKS (bash splits "--json=short" into "--json" "=" "short" by
# default).

# Completes file names for an option's value. $1: what to put before each
# match ("--socket=" when the option and its value are one word, else empty),
# $2: the value typed so far.
_numastatctl_files() {
        local prefix=$1 value=$2 f
        local IFS=$'\n'

        COMPREPLY=()
        if [[ -z $prefix ]]; then
                # Let bash quote the names and mark directories.
                compopt -o filenames 2>/dev/null
                COMPREPLY=($(compgen -f -- "$value"))
                return
        fi
        for f in $(compgen -f -- "$value"); do
                [[ -d $f ]] && f+=/
                COMPREPLY+=("$prefix$f")
        done
        [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == */ ]] && compopt -o nospace 2>/dev/null
}

_numastatctl() {
        local cur=${COMP_WORDS[COMP_CWORD]}
        local prev=${COMP_WORDS[COMP_CWORD - 1]}
        local commands='status monitor readers history counters metrics known-readers hold set-policy reload'
        local policies='strict coarse auto'
        local formats='pretty short'
        local opt='' value='' prefix=''
        local -a args=()
        local i w verb=''

        COMPREPLY=()

        # The option whose value is being completed, if any.
        if [[ $cur == '=' && $prev == --* ]]; then
                opt=$prev value=''                      # "--json=" split by bash
        elif [[ $prev == '=' && $COMP_CWORD -ge 2 && ${COMP_WORDS[COMP_CWORD - 2]} == --* ]]; then
                opt=${COMP_WORDS[COMP_CWORD - 2]} value=$cur   # "--json=sh" split by bash
        elif [[ $cur == --*=* ]]; then
                opt=${cur%%=*} value=${cur#*=} prefix=$opt=    # one word
        elif [[ $prev == -s || $prev == --socket ]]; then
                opt=--socket value=$cur                 # "-s PATH", "--socket PATH"
        fi

        case $opt in
        --socket)
                _numastatctl_files "$prefix" "$value"
                return 0
                ;;
        --json)
                COMPREPLY=($(compgen -P "$prefix" -W "$formats" -- "$value"))
                return 0
                ;;
        --reason | --timeout | --explain)
                # Free text, a duration, a pid or a name: nothing to offer.
                return 0
                ;;
        --*)
                # Options that take no value.
                return 0
                ;;
        esac

        # The words before the cursor that are not options or their values.
        for ((i = 1; i < COMP_CWORD; i++)); do
                w=${COMP_WORDS[i]}
                if [[ $w == -- ]]; then
                        # hold -- COMMAND [ARGS...]: bash completes the command.
                        if ((i + 1 == COMP_CWORD)); then
                                COMPREPLY=($(compgen -c -- "$cur"))
                        else
                                compopt -o default 2>/dev/null
                                COMPREPLY=()
                        fi
                        return 0
                fi
                case $w in
                -s)
                        ((i++))                         # its PATH
                        ;;
                --socket)
                        # "--socket" "PATH" or "--socket" "=" "PATH"
                        if [[ ${COMP_WORDS[i + 1]-} == '=' ]]; then
                                ((i += 2))
                        else
                                ((i++))
                        fi
                        ;;
                =)
                        # "--opt" "=" "value": skip the value, unless it is
                        # the word being completed.
                        ((i + 1 < COMP_CWORD)) && ((i++))
                        ;;
                -*) ;;
                *)
                        args+=("$w")
                        ;;
                esac
        done
        verb=${args[0]-}

        if [[ $cur == -* ]]; then
                local options='--socket= --json --json= --help --version'
                [[ $verb == set-policy ]] && options+=' --dry-run --no-dry-run'
                [[ $verb == hold ]] && options+=' --reason= --timeout= --'
                [[ $verb == known-readers ]] && options+=' --explain='
                COMPREPLY=($(compgen -W "$options" -- "$cur"))
                [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *= ]] && compopt -o nospace 2>/dev/null
                return 0
        fi

        if [[ -z $verb ]]; then
                COMPREPLY=($(compgen -W "$commands" -- "$cur"))
        elif [[ $verb == set-policy && ${#args[@]} -eq 1 ]]; then
                COMPREPLY=($(compgen -W "$policies" -- "$cur"))
        fi
        return 0
}

complete -F _numastatctl numastatctl

# ex: filetype=sh
