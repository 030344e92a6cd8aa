/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A command line split at blanks, as the kernel's argv_split() splits the
 * definitions written to synthetic_events and the probe files.
 */
#ifndef TREV_BASE_WORDS_H
#define TREV_BASE_WORDS_H

/*
 * trev__split_words() - split @s in place at blanks into @argv
 * @max: the room in @argv
 * Return: how many words; -E2BIG when there are more than @max.
 */
int trev__split_words(char *s, char **argv, int max);

#endif /* TREV_BASE_WORDS_H */
