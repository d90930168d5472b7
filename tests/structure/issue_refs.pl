#!/usr/bin/perl
# issue_refs.pl FILE...: print FILE:LINE: TEXT for each reference to an issue
# tracker number in the files, and exit 1 if there is one. A reader of the
# repository cannot look such a number up, so the code and the documents say
# the reason itself. What counts as a reference:
#   - the word issue (or issues) followed by a number, with or without '#',
#     also across a line break and a comment's leader ("issue\n * 12");
#   - '#' and a number where a tracker's reference stands: after "(" or "[",
#     after see, fix(es|ed), close(s|d), resolve(s|d), per, cf, PR, bug, or
#     first in a comment ("# #12", "// #12", "/* #12").
# What does not: "#define", "#if 0", "%d", "${#a[@]}", "$#", a colour
# "#ff0000", an ordinal such as "u32 #1" or "frame #2".
use strict;
use warnings;

my $lead = qr{(?:[ \t]|\n[ \t]*(?:\#|//|/?\*|;|--|dnl)?[ \t]*)};
my $issue = qr{\bissues?$lead+(?:\#[ \t]*)?\d+\b}i;
my $hash = qr{(?:
	  [(\[]
	| \b(?:see|fix(?:es|ed)?|close[sd]?|resolve[sd]?|per|cf\.?|pr|bug)[ \t]+
	| (?:^|\n)[ \t]*(?:\#|//|/\*|\*)[ \t]+
	)\#\d+\b}xi;

my $found = 0;
for my $f (@ARGV) {
	open(my $fh, '<', $f) or die "issue_refs.pl: cannot read $f: $!\n";
	local $/;
	my $text = <$fh>;
	close($fh);
	next if !defined $text || $text =~ /\0/;
	while ($text =~ /($issue|$hash)/g) {
		# the line of the number (a reference may start on the line before)
		my $line = 1 + (substr($text, 0, $+[0]) =~ tr/\n//);
		(my $m = $1) =~ s/\s+/ /g;
		$m =~ s/^ //;
		print "$f:$line: $m\n";
		$found = 1;
	}
}
exit $found;
