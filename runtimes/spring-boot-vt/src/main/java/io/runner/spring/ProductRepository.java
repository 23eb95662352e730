package io.runner.spring;

import java.util.List;

import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.data.jpa.repository.Query;
import org.springframework.data.repository.query.Param;

/**
 * Spring Data JPA on the products table. The list is the contract's statement itself (a native query):
 * Spring Data's {@code Pageable} counts in pages, and an offset that is not a multiple of the limit
 * ({@code limit=2&offset=999}) is not a page.
 */
public interface ProductRepository extends JpaRepository<Product, Long> {

    @Query(value = "SELECT id, name, price_cents, stock FROM products ORDER BY id LIMIT :limit OFFSET :offset",
            nativeQuery = true)
    List<Product> page(@Param("limit") int limit, @Param("offset") long offset);
}
