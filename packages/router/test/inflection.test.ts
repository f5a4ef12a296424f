// Runtime inflection (support/inflection.ts) on words reaching every kind of rule: plain
// endings, irregulars, uncountables (a compound after `-` is, after `_` is not), rules that do
// not end the word (`oxen1`), words no rule changes, case. The rules are tried only where the
// word's last letter lets them match: a rule left out by that index would show here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pluralize, singularize } from '../src/index.js';

/** [word, singular, plural], as ActiveSupport's default inflections give them. */
const CASES: [string, string, string][] = [
  ['posts', 'post', 'posts'],
  ['people', 'person', 'people'],
  ['person', 'person', 'people'],
  ['Person', 'Person', 'People'],
  ['oxen', 'ox', 'oxen'],
  ['oxen1', 'ox1', 'oxen1s'],
  ['ox', 'ox', 'oxen'],
  ['res12', 'res12', 'res12s'],
  ['sub0', 'sub0', 'sub0s'],
  ['bus', 'bus', 'buses'],
  ['buses', 'bus', 'buses'],
  ['alias', 'alias', 'aliases'],
  ['aliases', 'alias', 'aliases'],
  ['status', 'status', 'statuses'],
  ['statuses', 'status', 'statuses'],
  ['fish', 'fish', 'fish'],
  ['goldfish', 'goldfish', 'goldfishes'],
  ['big_fish', 'big_fish', 'big_fishes'],
  ['big-fish', 'big-fish', 'big-fish'],
  ['sheep', 'sheep', 'sheep'],
  ['news', 'news', 'news'],
  ['octopi', 'octopus', 'octopi'],
  ['octopus', 'octopus', 'octopi'],
  ['viri', 'virus', 'viri'],
  ['axes', 'axis', 'axes'],
  ['axis', 'axis', 'axes'],
  ['testis', 'testis', 'testes'],
  ['crises', 'crisis', 'crises'],
  ['analyses', 'analysis', 'analyses'],
  ['mice', 'mouse', 'mice'],
  ['mouse', 'mouse', 'mice'],
  ['matrix', 'matrix', 'matrices'],
  ['matrices', 'matrix', 'matrices'],
  ['vertex', 'vertex', 'vertices'],
  ['indices', 'index', 'indices'],
  ['quiz', 'quiz', 'quizzes'],
  ['quizzes', 'quiz', 'quizzes'],
  ['children', 'child', 'children'],
  ['child', 'child', 'children'],
  ['men', 'man', 'men'],
  ['woman', 'woman', 'women'],
  ['sexes', 'sex', 'sexes'],
  ['moves', 'move', 'moves'],
  ['zombies', 'zombie', 'zombies'],
  ['hives', 'hive', 'hives'],
  ['lives', 'life', 'lives'],
  ['wife', 'wife', 'wives'],
  ['wolves', 'wolf', 'wolves'],
  ['knives', 'knife', 'knives'],
  ['half', 'half', 'halves'],
  ['movies', 'movie', 'movies'],
  ['series', 'series', 'series'],
  ['species', 'species', 'species'],
  ['equipment', 'equipment', 'equipment'],
  ['my_equipment', 'my_equipment', 'my_equipments'],
  ['money', 'money', 'money'],
  ['shoes', 'shoe', 'shoes'],
  ['tomato', 'tomato', 'tomatoes'],
  ['tomatoes', 'tomato', 'tomatoes'],
  ['heroes', 'hero', 'heroes'],
  ['data', 'datum', 'data'],
  ['datum', 'datum', 'data'],
  ['media', 'medium', 'media'],
  ['medium', 'medium', 'media'],
  ['databases', 'database', 'databases'],
  ['queries', 'query', 'queries'],
  ['query', 'query', 'queries'],
  ['days', 'day', 'days'],
  ['boxes', 'box', 'boxes'],
  ['box', 'box', 'boxes'],
  ['matches', 'match', 'matches'],
  ['wishes', 'wish', 'wishes'],
  ['addresses', 'address', 'addresses'],
  ['categories', 'category', 'categories'],
  ['companies', 'company', 'companies'],
  ['POSTS', 'POST', 'POSTs'],
  ['PEOPLE', 'Person', 'People'],
  ['menus', 'menu', 'menus'],
  ['invoices', 'invoice', 'invoices'],
  ['services', 'service', 'services'],
  ['thesis', 'thesis', 'theses'],
  ['parentheses', 'parenthesis', 'parentheses'],
  ['İ', 'İ', 'İs'],
  ['x', 'x', 'xes'],
  ['s', '', 's'],
  ['', '', ''],
];

test('singularize and pluralize give ActiveSupport’s answers', () => {
  for (const [word, singular, plural] of CASES) {
    assert.equal(singularize(word), singular, `singularize(${JSON.stringify(word)})`);
    assert.equal(pluralize(word), plural, `pluralize(${JSON.stringify(word)})`);
  }
});

test('a word asked twice gets the same answer (the cache)', () => {
  for (const [word, singular, plural] of CASES) {
    assert.equal(singularize(word), singular);
    assert.equal(pluralize(word), plural);
  }
});
