#include "heed/data/batch_sampler.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "heed/base/error.h"

namespace heed {
namespace {

// n pairs of varied lengths: source 1..30 tokens, target 1..25 (before EOS).
Corpus synthetic_corpus(std::size_t n, std::uint64_t seed = 7) {
  Rng rng(seed);
  Corpus c;
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<std::int32_t> s(1 + rng.below(30)), t(1 + rng.below(25));
    for (auto& x : s) x = 4 + static_cast<std::int32_t>(rng.below(50));
    for (auto& x : t) x = 4 + static_cast<std::int32_t>(rng.below(50));
    s.push_back(Vocabulary::kEos);
    t.push_back(Vocabulary::kEos);
    c.src.push_back(s);
    c.tgt.push_back(t);
    c.index.push_back(i * 2);  // as if every other line had been filtered out
  }
  c.stats.read = c.stats.kept = n;
  return c;
}

// All batches of one epoch.
std::vector<Batch> epoch_batches(BatchSampler& sampler) {
  std::vector<Batch> out;
  while (auto b = sampler.next()) out.push_back(std::move(*b));
  return out;
}

TEST(BatchSampler, RespectsTheTokenBudget) {
  Corpus c = synthetic_corpus(500);
  for (std::size_t budget : {32, 100, 257, 1000}) {
    BatchOptions opts;
    opts.max_tokens = budget;
    opts.pool_size = 128;
    BatchSampler sampler(c, opts);
    for (const Batch& b : epoch_batches(sampler)) {
      EXPECT_LE(b.padded_tokens(), budget);
      EXPECT_GE(b.size, 1u);
    }
  }
}

TEST(BatchSampler, LimitsSentencesPerBatch) {
  Corpus c = synthetic_corpus(200);
  BatchOptions opts;
  opts.max_tokens = 100000;
  opts.max_sentences = 16;
  BatchSampler sampler(c, opts);
  auto batches = epoch_batches(sampler);
  EXPECT_EQ(batches.size(), 13u);  // ceil(200 / 16) with a single pool
  for (const auto& b : batches) EXPECT_LE(b.size, 16u);
}

TEST(BatchSampler, OverlongSentenceGetsABatchAlone) {
  Corpus c = synthetic_corpus(50);
  BatchOptions opts;
  opts.max_tokens = 10;  // below many sentence lengths
  BatchSampler sampler(c, opts);
  std::size_t rows = 0;
  for (const Batch& b : epoch_batches(sampler)) {
    rows += b.size;
    if (b.padded_tokens() > 10) {
      EXPECT_EQ(b.size, 1u);
    }
  }
  EXPECT_EQ(rows, 50u);
}

TEST(BatchSampler, CoversEverySentenceOncePerEpoch) {
  Corpus c = synthetic_corpus(777);
  BatchOptions opts;
  opts.max_tokens = 300;
  opts.pool_size = 100;
  BatchSampler sampler(c, opts);
  std::vector<std::size_t> first_epoch_order;
  for (int epoch = 0; epoch < 3; ++epoch) {
    EXPECT_EQ(sampler.epoch(), static_cast<std::uint64_t>(epoch));
    std::vector<std::size_t> seen;
    std::vector<std::size_t> order;
    for (const Batch& b : epoch_batches(sampler)) {
      for (std::size_t r = 0; r < b.size; ++r) {
        seen.push_back(b.members[r]);
        EXPECT_EQ(b.indices[r], 2 * b.members[r]);
        // Rows carry their own sentence.
        EXPECT_EQ(b.src_lengths[r], static_cast<std::int32_t>(c.src[b.members[r]].size()));
      }
      order.insert(order.end(), b.members.begin(), b.members.end());
    }
    std::sort(seen.begin(), seen.end());
    ASSERT_EQ(seen.size(), 777u);
    for (std::size_t i = 0; i < seen.size(); ++i) ASSERT_EQ(seen[i], i);
    if (epoch == 0) {
      first_epoch_order = order;
    } else {
      EXPECT_NE(order, first_epoch_order);  // each epoch reshuffles
    }
  }
}

TEST(BatchSampler, BucketingReducesPadding) {
  Corpus c = synthetic_corpus(2000);
  auto padding = [&](bool sort) {
    BatchOptions opts;
    opts.max_tokens = 400;
    opts.sort_by_length = sort;
    BatchSampler sampler(c, opts);
    std::size_t padded = 0, real = 0;
    for (const Batch& b : epoch_batches(sampler)) {
      padded += b.size * b.src_len;
      real += b.src_tokens;
    }
    return static_cast<double>(padded - real) / static_cast<double>(padded);
  };
  double sorted = padding(true), unsorted = padding(false);
  EXPECT_LT(sorted, 0.1);
  EXPECT_GT(unsorted, 0.3);
}

TEST(BatchSampler, SameSeedSameBatchesOtherSeedOtherBatches) {
  Corpus c = synthetic_corpus(300);
  BatchOptions opts;
  opts.max_tokens = 200;
  BatchSampler a(c, opts), b(c, opts);
  opts.seed = 99;
  BatchSampler other(c, opts);
  for (int epoch = 0; epoch < 2; ++epoch) {
    auto ea = epoch_batches(a), eb = epoch_batches(b), eo = epoch_batches(other);
    ASSERT_EQ(ea.size(), eb.size());
    for (std::size_t i = 0; i < ea.size(); ++i) {
      EXPECT_EQ(ea[i].members, eb[i].members);
      EXPECT_EQ(ea[i].src, eb[i].src);
      EXPECT_EQ(ea[i].tgt_in, eb[i].tgt_in);
    }
    std::vector<std::vector<std::size_t>> ma, mo;
    for (auto& x : ea) ma.push_back(x.members);
    for (auto& x : eo) mo.push_back(x.members);
    EXPECT_NE(ma, mo);
  }
}

TEST(BatchSampler, ResumesExactlyMidEpoch) {
  Corpus c = synthetic_corpus(400);
  BatchOptions opts;
  opts.max_tokens = 250;
  opts.pool_size = 64;
  // Reference run: 2.5 epochs without interruption.
  BatchSampler reference(c, opts);
  std::vector<std::vector<std::size_t>> expected;
  epoch_batches(reference);
  std::size_t half = reference.batches_in_epoch() / 2;
  BatchPosition saved;
  for (std::size_t i = 0; i < half; ++i) expected.push_back(reference.next()->members);
  saved = reference.position();
  std::vector<std::vector<std::size_t>> after;
  for (int k = 0; k < 2; ++k)
    while (auto b = reference.next()) after.push_back(b->members);

  // Resumed run: a fresh sampler (other seed, even) restored from the text form.
  BatchOptions other = opts;
  other.seed = 5;
  BatchSampler resumed(c, other);
  resumed.set_position(BatchPosition::parse(saved.to_string()));
  EXPECT_EQ(resumed.position(), saved);
  EXPECT_EQ(resumed.epoch(), 1u);
  std::vector<std::vector<std::size_t>> got;
  for (int k = 0; k < 2; ++k)
    while (auto b = resumed.next()) got.push_back(b->members);
  EXPECT_EQ(got, after);
}

TEST(BatchSampler, ResumesAtAnEpochBoundary) {
  Corpus c = synthetic_corpus(100);
  BatchOptions opts;
  opts.max_tokens = 120;
  BatchSampler reference(c, opts);
  for (std::size_t i = 0; i < reference.batches_in_epoch(); ++i) reference.next();
  BatchPosition saved = reference.position();  // after the last batch, before the end signal
  EXPECT_FALSE(reference.next().has_value());
  auto expected = epoch_batches(reference);
  BatchSampler resumed(c, opts);
  resumed.set_position(saved);
  EXPECT_FALSE(resumed.next().has_value());
  auto got = epoch_batches(resumed);
  ASSERT_EQ(got.size(), expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i].members, expected[i].members);
}

TEST(BatchSampler, RejectsPositionsFromAnotherCorpus) {
  Corpus c = synthetic_corpus(100), d = synthetic_corpus(90);
  BatchSampler a(c, {}), b(d, {});
  EXPECT_THROW(b.set_position(a.position()), Error);
  BatchPosition p = a.position();
  p.batch = 1000;
  EXPECT_THROW(a.set_position(p), Error);
  EXPECT_THROW(BatchPosition::parse("epoch x"), Error);
  EXPECT_THROW(BatchPosition::parse("epoch 1 batch 2 corpus 3 rng"), Error);
  Corpus empty;
  EXPECT_THROW(BatchSampler(empty, {}), Error);
}

TEST(PlanBatches, UnshuffledKeepsCorpusOrderWithoutSorting) {
  Corpus c = synthetic_corpus(40);
  BatchOptions opts;
  opts.shuffle = false;
  opts.sort_by_length = false;
  opts.max_tokens = 100;
  Rng rng(1);
  std::string before = rng.state();
  auto plan = plan_batches(c, opts, rng);
  EXPECT_EQ(rng.state(), before);  // no randomness used
  std::vector<std::size_t> flat;
  for (auto& b : plan) flat.insert(flat.end(), b.begin(), b.end());
  for (std::size_t i = 0; i < flat.size(); ++i) EXPECT_EQ(flat[i], i);
  EXPECT_EQ(flat.size(), 40u);
}

TEST(PlanBatches, SortedForTranslationCanBeRestoredToInputOrder) {
  Corpus c = synthetic_corpus(60);
  c.tgt.clear();  // source only
  BatchOptions opts;
  opts.shuffle = false;
  opts.pool_size = 0;
  opts.max_tokens = 64;
  Rng rng(1);
  std::vector<std::size_t> order;
  std::size_t last_len = 0;
  for (auto& members : plan_batches(c, opts, rng)) {
    Batch b = make_batch(c, members);
    EXPECT_LE(b.padded_tokens(), 64u);
    for (std::size_t r = 0; r < b.size; ++r) {
      EXPECT_GE(static_cast<std::size_t>(b.src_lengths[r]), last_len);  // sorted ascending
      last_len = static_cast<std::size_t>(b.src_lengths[r]);
      order.push_back(b.indices[r]);
    }
  }
  std::sort(order.begin(), order.end());
  for (std::size_t i = 0; i < order.size(); ++i) EXPECT_EQ(order[i], 2 * i);
}

}  // namespace
}  // namespace heed
