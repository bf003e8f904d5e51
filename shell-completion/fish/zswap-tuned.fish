# SPDX-License-Identifier: GPL-2.0-or-later
#
# fish completion for zswap-tuned(8): the daemon's options, log levels,
# files and directories, and the commands status, replay and plot with
# their options. Installed in fish's vendor_completions.d by default
# (configure --with-fishcompletiondir).

set -l commands status replay plot
complete -c zswap-tuned -f

# The daemon (no command yet)
set -l top "not __fish_seen_subcommand_from $commands"
complete -c zswap-tuned -n $top -a status -d 'what the running daemon is doing, and why'
complete -c zswap-tuned -n $top -a replay -d 'run the policy over a recording'
complete -c zswap-tuned -n $top -a plot -d 'draw a recording (needs gnuplot)'
complete -c zswap-tuned -n $top -s c -l config -r -F -d 'configuration file (drop-ins from FILE.d/*.conf)'
complete -c zswap-tuned -n $top -l check-config -d 'check the configuration, print it and exit'
complete -c zswap-tuned -n $top -s n -l dry-run -d 'decide and log, but never write the knob'
complete -c zswap-tuned -n $top -l restore -d 'restore the knob saved in the state directory and exit'
complete -c zswap-tuned -n $top -l root -x -a '(__fish_complete_directories)' -d 'look for /proc and /sys below DIR'
complete -c zswap-tuned -n $top -l state-dir -x -a '(__fish_complete_directories)' -d 'where the original knob value is kept'
complete -c zswap-tuned -n $top -l log-level -x -a 'err warning notice info debug' -d 'log level'
complete -c zswap-tuned -n $top -l record -r -F -d 'append every sample and decision to FILE'
complete -c zswap-tuned -n $top -s h -l help -d 'show the help'
complete -c zswap-tuned -n $top -s V -l version -d 'show the version'

# status
complete -c zswap-tuned -n '__fish_seen_subcommand_from status' -l json -d 'one JSON object'

# replay FILE
set -l replay '__fish_seen_subcommand_from replay'
complete -c zswap-tuned -n $replay -F -d recording
complete -c zswap-tuned -n $replay -s c -l config -r -F -d 'the configuration to replay with'
complete -c zswap-tuned -n $replay -l verify -d 'compare with the recorded decisions'
complete -c zswap-tuned -n $replay -s q -l quiet -d 'the summary only'
complete -c zswap-tuned -n $replay -l lenient -d 'skip refused lines (each said), count them'

# plot FILE -o OUT.png
set -l plot '__fish_seen_subcommand_from plot'
complete -c zswap-tuned -n $plot -F -d recording
complete -c zswap-tuned -n $plot -s o -l output -r -F -d 'the PNG to write'
