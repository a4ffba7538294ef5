// graphdsl/detail/small_vec.hpp — a vector of uint32_t that keeps up to two elements inline.
//
// A node's predecessor list usually has one or two entries; keeping them inside the node record
// saves one heap allocation per node when a plan is built or copied, and a pointer chase per node
// when plans are compared (Executable::update's diff). Two entries take the room of the heap pointer
// (16 bytes in all), so that the node record stays 24 bytes: the diff reads every one of both plans.
//
// Internal: not part of graphdsl's API and left out of its reference (docs/api-overview.md);
// names here may change in any release.
#pragma once

#include <cstdint>
#include <cstring>
#include <new>
#include <utility>

namespace graphdsl::detail {

class SmallVec {
 public:
  static constexpr std::uint32_t inline_capacity = 2;

  SmallVec() noexcept : size_(0), cap_(inline_capacity), inline_{} {}
  SmallVec(const SmallVec& o) : SmallVec() { assign(o.begin(), o.end()); }
  SmallVec(SmallVec&& o) noexcept : size_(o.size_), cap_(o.cap_) {
    if (o.on_heap()) {
      heap_ = o.heap_;
      o.cap_ = inline_capacity;
      o.size_ = 0;
      std::memset(o.inline_, 0, sizeof o.inline_);
    } else {
      std::memcpy(inline_, o.inline_, sizeof inline_);
    }
  }
  SmallVec& operator=(const SmallVec& o) {
    if (this != &o) assign(o.begin(), o.end());
    return *this;
  }
  SmallVec& operator=(SmallVec&& o) noexcept {
    if (this != &o) {
      this->~SmallVec();
      new (this) SmallVec(std::move(o));
    }
    return *this;
  }
  ~SmallVec() {
    if (on_heap()) delete[] heap_;
  }

  std::uint32_t* begin() noexcept { return data(); }
  std::uint32_t* end() noexcept { return data() + size_; }
  const std::uint32_t* begin() const noexcept { return data(); }
  const std::uint32_t* end() const noexcept { return data() + size_; }
  std::uint32_t* data() noexcept { return on_heap() ? heap_ : inline_; }
  const std::uint32_t* data() const noexcept { return on_heap() ? heap_ : inline_; }
  std::uint32_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  /// Elements held on the heap (0 while they fit inline), for Graph::storage_bytes().
  std::uint32_t heap_capacity() const noexcept { return on_heap() ? cap_ : 0; }
  std::uint32_t operator[](std::uint32_t i) const noexcept { return data()[i]; }

  void push_back(std::uint32_t v) {
    if (size_ == cap_) grow(cap_ * 2);
    data()[size_++] = v;
  }
  /// Makes room for `n` more elements (growing as push_back does), so that the next n push_back
  /// calls cannot throw: a caller adding several elements either adds them all or none.
  void reserve_more(std::uint32_t n) {
    if (n > cap_ - size_) grow(size_ + n > cap_ * 2 ? size_ + n : cap_ * 2);
  }
  /// Removes the last element (the list must not be empty). Its slot is zeroed (see below).
  void pop_back() noexcept { data()[--size_] = 0; }
  /// Removes the elements not below `limit`, keeping the order of the others.
  void keep_below(std::uint32_t limit) noexcept {
    std::uint32_t* p = data();
    std::uint32_t kept = 0;
    for (std::uint32_t k = 0; k < size_; ++k) {
      if (p[k] < limit) p[kept++] = p[k];
    }
    for (std::uint32_t k = kept; k < size_; ++k) p[k] = 0;
    size_ = kept;
  }
  template <class It>
  void assign(It first, It last) {
    const auto n = static_cast<std::uint32_t>(last - first);
    size_ = 0;
    if (n > cap_) grow(n);
    std::uint32_t* out = data();
    for (; first != last; ++first) *out++ = *first;
    size_ = n;
  }

  friend bool operator==(const SmallVec& a, const SmallVec& b) noexcept {
    return a.size_ == b.size_ &&
           (a.size_ == 0 || std::memcmp(a.data(), b.data(), a.size_ * sizeof(std::uint32_t)) == 0);
  }
  friend bool operator!=(const SmallVec& a, const SmallVec& b) noexcept { return !(a == b); }

 private:
  bool on_heap() const noexcept { return cap_ > inline_capacity; }
  void grow(std::uint32_t cap) {
    auto* fresh = new std::uint32_t[cap];
    if (size_ != 0) std::memcpy(fresh, data(), size_ * sizeof(std::uint32_t));
    if (on_heap()) delete[] heap_;
    heap_ = fresh;
    cap_ = cap;
  }

  // Unused inline slots are zero (a new vector's and a moved-from one's), so that two lists built
  // the same way hold the same bytes: the diff compares blocks of node records with memcmp first.
  std::uint32_t size_;
  std::uint32_t cap_;
  union {
    std::uint32_t inline_[inline_capacity];
    std::uint32_t* heap_;
  };
};

}  // namespace graphdsl::detail
